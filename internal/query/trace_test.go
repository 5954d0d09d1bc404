package query

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cqld/cqld/internal/types"
)

// TestTraceLiteral: bound values as ExecuteMessage records them.
func TestTraceLiteral(t *testing.T) {
	long := strings.Repeat("é", 1200)
	for _, c := range []struct {
		typ  *types.Type
		v    Value
		want string
	}{
		{types.IntType, Value{B: types.EncodeInt(7)}, "7"},
		{types.TextType, Value{B: []byte("it's")}, "'it''s'"},
		{types.IntType, Value{}, "null"},
		{types.IntType, Value{B: []byte{}}, "null"},
		{types.IntType, Value{Unset: true}, "null"},
		{types.TextType, Value{B: []byte{}}, "''"},
		{types.TextType, Value{Unset: true}, "''"},
		{types.BlobType, Value{B: []byte{}}, "0x"},
		// Cut after 1000 UTF-16 units (the quote and 999 é), on a
		// character boundary.
		{types.TextType, Value{B: []byte(long)}, "'" + strings.Repeat("é", 999) + "...'"},
	} {
		got := traceLiteral(c.typ, c.v)
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("traceLiteral(%s, %+v) = %.40q..., want %.40q...", c.typ, c.v, got, c.want)
		}
	}
}
