package query

import (
	"bytes"
	"strings"
	"unicode"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
	"golang.org/x/text/unicode/norm"
)

// Text analysis of storage-attached indexes (options case_sensitive,
// normalize and ascii; Cassandra's NonTokenizingAnalyzer). An analysed
// index stores, and is queried with, the analysed form of each value; the
// rows it returns keep their stored values, and equality restrictions on
// the column compare analysed forms when rows are checked.

// analyzer returns the function that analyses the values of col for index
// ix, or nil when the index does not analyse them.
func analyzer(ix *schema.Index, col *schema.Column) func([]byte) []byte {
	a, ok := ix.Analysis(col)
	if !ok {
		return nil
	}
	return func(v []byte) []byte {
		if v == nil {
			return nil
		}
		return []byte(analyzeText(a, string(v)))
	}
}

// analyzeText applies Cassandra's filter pipeline: to_lower, normalize
// (NFC), ascii (Lucene's ASCIIFoldingFilter).
func analyzeText(a schema.TextAnalysis, s string) string {
	if a.CaseInsensitive {
		s = strings.ToLower(s)
	}
	if a.Normalize {
		s = norm.NFC.String(s)
	}
	if a.ASCII {
		s = foldToASCII(s)
	}
	return s
}

// asciiFolds are the foldings of ASCIIFoldingFilter that are not a base
// letter followed by combining marks (which foldToASCII strips).
var asciiFolds = map[rune]string{
	'Æ': "AE", 'æ': "ae", 'Ð': "D", 'ð': "d", 'Ø': "O", 'ø': "o", 'Þ': "TH", 'þ': "th",
	'ß': "ss", 'Đ': "D", 'đ': "d", 'Ħ': "H", 'ħ': "h", 'ı': "i", 'Ĳ': "IJ", 'ĳ': "ij",
	'ĸ': "q", 'Ŀ': "L", 'ŀ': "l", 'Ł': "L", 'ł': "l", 'ŉ': "'n", 'Ŋ': "N", 'ŋ': "n",
	'Œ': "OE", 'œ': "oe", 'Ŧ': "T", 'ŧ': "t", 'ſ': "s", 'ƒ': "f", 'ǝ': "e", 'ʃ': "s",
	'‘': "'", '’': "'", '‚': "'", '“': "\"", '”': "\"", '„': "\"", '«': "\"", '»': "\"",
	'–': "-", '—': "-", '…': "...", '€': "EUR", '×': "x", '÷': "/",
}

// foldToASCII approximates ASCIIFoldingFilter.foldToASCII: accented
// letters lose their accents (canonical decomposition without the
// combining marks) and the common ligatures and letters without a
// decomposition are spelled in ASCII; other characters are kept.
func foldToASCII(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		if f, ok := asciiFolds[r]; ok {
			b.WriteString(f)
			continue
		}
		d := norm.NFD.String(string(r))
		base := strings.Map(func(c rune) rune {
			if unicode.Is(unicode.Mn, c) {
				return -1
			}
			return c
		}, d)
		if base != "" && base[0] < 0x80 {
			b.WriteString(base)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// setFilterAnalyzers makes the = restrictions of filters on columns
// with an analysed storage-attached index compare analysed values, and
// the restrictions of an inet column with a storage-attached index hold
// for both its terms and its raw values: the replica's index compares
// terms, and in 5.0 the coordinator's row filter then compares raw bytes
// (CASSANDRA-19492), so a client sees the rows both keep.
func setFilterAnalyzers(t *schema.Table, filters []rowFilter) {
	for i := range filters {
		f := &filters[i]
		if f.col != nil && f.mapKey == nil && f.col.Type.Kind == types.Inet && saiIndexed(t, f.col) {
			switch f.op {
			case cql.OpLt, cql.OpLte, cql.OpGt, cql.OpGte:
				f.analyze, f.alsoRaw = inetTerm, true
			}
			// For = the raw comparison alone decides: equal raw values
			// have equal terms.
			continue
		}
		// Only = is answered by the index; other relations (IN with
		// ALLOW FILTERING) compare stored values, as Cassandra's row
		// filter does.
		if f.col == nil || f.mapKey != nil || f.op != cql.OpEq {
			continue
		}
		for _, ix := range t.IndexesOn(f.col.Name) {
			if a := analyzer(ix, f.col); a != nil {
				f.analyze = a
				break
			}
		}
	}
}

// compareValues compares a row's value of the filter's column with a
// restriction value: as analysed text when the column's index analyses it.
func (f *rowFilter) compareValues(typ *types.Type, v, want []byte) int {
	if f.analyze != nil {
		return bytes.Compare(f.analyze(v), f.analyze(want))
	}
	return types.Compare(typ, v, want)
}

// saiIndexed reports whether a storage-attached index indexes col's values.
func saiIndexed(t *schema.Table, col *schema.Column) bool {
	for _, ix := range t.IndexesOn(col.Name) {
		if ix.SAI() {
			return true
		}
	}
	return false
}

// inetTerm is the term a storage-attached index keeps for an inet value:
// an IPv4 address as its IPv4-mapped IPv6 form, so that the index orders
// both families together (InetAddressType's index encoding); the column's
// comparator compares raw bytes, so 127.0.0.1 sorts after 2002::1.
func inetTerm(v []byte) []byte {
	if len(v) != 4 {
		return v
	}
	return append([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, v...)
}
