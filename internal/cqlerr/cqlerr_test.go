package cqlerr

import (
	"errors"
	"fmt"
	"testing"
)

func TestAsAndIs(t *testing.T) {
	e := Invalidf("Keyspace '%s' does not exist", "x")
	wrapped := fmt.Errorf("context: %w", e)
	if got := As(wrapped); got != e {
		t.Fatalf("As did not unwrap: %v", got)
	}
	if !Is(wrapped, Invalid) || Is(wrapped, SyntaxError) {
		t.Fatal("Is")
	}
	if got := As(errors.New("boom")); got.Code != ServerError || got.Message != "boom" {
		t.Fatalf("a plain error becomes a ServerError, got %+v", got)
	}
	if As(nil) != nil {
		t.Fatal("As(nil)")
	}
}

func TestMessages(t *testing.T) {
	if got := KeyspaceExists("ks").Message; got != `Cannot add existing keyspace "ks"` {
		t.Fatal(got)
	}
	if e := TableExists("ks", "t"); e.Keyspace != "ks" || e.Table != "t" || e.Code != AlreadyExists {
		t.Fatalf("%+v", e)
	}
	if Code(0x2200).String() != "Invalid" || Code(0x9999).String() != "Code(0x9999)" {
		t.Fatal("Code.String")
	}
}
