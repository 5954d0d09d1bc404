package query

import (
	"math"
	"testing"

	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

func TestAnnScore(t *testing.T) {
	for _, tc := range []struct {
		fn   string
		x, y []float32
		want float64
	}{
		// COSINE: (1 + cos) / 2.
		{"COSINE", []float32{1, 0}, []float32{1, 0}, 1},
		{"COSINE", []float32{1, 0}, []float32{0, 1}, 0.5},
		{"COSINE", []float32{1, 0}, []float32{-2, 0}, 0},
		{"COSINE", []float32{1, 0}, []float32{1, 1}, (1 + 1/math.Sqrt2) / 2},
		// The docs' vector search example: 0.88945 in cqlsh.
		{"COSINE", []float32{0.15, 0.1, 0.1, 0.35, 0.55}, []float32{0.9, 0.54, 0.12, 0.1, 0.95}, 0.889452},
		// DOT_PRODUCT: (1 + x·y) / 2.
		{"DOT_PRODUCT", []float32{1, 2}, []float32{3, 0}, 2},
		{"DOT_PRODUCT", []float32{1, 2}, []float32{-1, -1}, -1},
		{"DOT_PRODUCT", []float32{0, 0}, []float32{5, 5}, 0.5},
		// EUCLIDEAN: 1 / (1 + |x - y|²).
		{"EUCLIDEAN", []float32{0, 0}, []float32{0, 0}, 1},
		{"EUCLIDEAN", []float32{0, 0}, []float32{1, 0}, 0.5},
		{"EUCLIDEAN", []float32{0, 0}, []float32{-1, -1}, 1.0 / 3},
		{"EUCLIDEAN", []float32{1, 2}, []float32{4, 6}, 1.0 / 26},
	} {
		got := annScore(tc.fn, tc.x, tc.y)
		if math.Abs(float64(got)-tc.want) > 1e-5 {
			t.Errorf("annScore(%s, %v, %v) = %v, want %v", tc.fn, tc.x, tc.y, got, tc.want)
		}
	}
	if s := annScore("COSINE", []float32{0, 0}, []float32{1, 0}); !math.IsNaN(float64(s)) {
		t.Errorf("cosine of a zero vector = %v, want NaN (the row is skipped)", s)
	}
}

func TestDecodeAnnVector(t *testing.T) {
	typ := &types.Type{Kind: types.Vector, Params: []*types.Type{types.FloatType}, Dimension: 2}
	b := types.EncodeVector(typ, [][]byte{types.EncodeFloat(1.5), types.EncodeFloat(-2)})
	v, ok := decodeAnnVector(typ, b)
	if !ok || len(v) != 2 || v[0] != 1.5 || v[1] != -2 {
		t.Fatalf("decodeAnnVector = %v, %v", v, ok)
	}
	if _, ok := decodeAnnVector(typ, nil); ok {
		t.Error("null vector decoded")
	}
	if _, ok := decodeAnnVector(typ, b[:4]); ok {
		t.Error("short vector decoded")
	}
}

func TestAnalyzeText(t *testing.T) {
	all := schema.TextAnalysis{CaseInsensitive: true, Normalize: true, ASCII: true}
	for _, tc := range []struct {
		a       schema.TextAnalysis
		in, out string
	}{
		{schema.TextAnalysis{CaseInsensitive: true}, "GBR", "gbr"},
		{schema.TextAnalysis{CaseInsensitive: true}, "Straße", "straße"},
		{schema.TextAnalysis{Normalize: true}, "cafe\u0301", "caf\u00e9"},
		{schema.TextAnalysis{Normalize: true}, "Caf\u00e9", "Caf\u00e9"},
		{schema.TextAnalysis{ASCII: true}, "Crème Brûlée", "Creme Brulee"},
		{schema.TextAnalysis{ASCII: true}, "Æsir Øl straße", "AEsir Ol strasse"},
		{schema.TextAnalysis{ASCII: true}, "日本", "日本"},
		{all, "CRÈME Brûlée", "creme brulee"},
	} {
		if got := analyzeText(tc.a, tc.in); got != tc.out {
			t.Errorf("analyzeText(%+v, %q) = %q, want %q", tc.a, tc.in, got, tc.out)
		}
	}
}

func TestIndexAnalysis(t *testing.T) {
	text := &schema.Column{Name: "s", Type: types.TextType, Kind: schema.Regular}
	num := &schema.Column{Name: "n", Type: types.IntType, Kind: schema.Regular}
	sai := func(opts map[string]string) *schema.Index {
		return &schema.Index{Column: "s", Custom: true, Class: schema.SAIClass, Options: opts}
	}
	if _, ok := sai(nil).Analysis(text); ok {
		t.Error("no options: analysed")
	}
	if _, ok := sai(map[string]string{"case_sensitive": "TRUE", "normalize": "false"}).Analysis(text); ok {
		t.Error("default options: analysed")
	}
	if a, ok := sai(map[string]string{"case_sensitive": "False"}).Analysis(text); !ok || !a.CaseInsensitive || a.Normalize || a.ASCII {
		t.Errorf("case_sensitive false: %+v, %v", a, ok)
	}
	if _, ok := sai(map[string]string{"case_sensitive": "false"}).Analysis(num); ok {
		t.Error("int column analysed")
	}
	legacy := &schema.Index{Column: "s", Options: map[string]string{"case_sensitive": "false"}}
	if _, ok := legacy.Analysis(text); ok {
		t.Error("legacy index analysed")
	}
	if f := sai(map[string]string{"similarity_function": "dot_product"}).SimilarityFunction(); f != "DOT_PRODUCT" {
		t.Errorf("SimilarityFunction = %s", f)
	}
	if f := sai(nil).SimilarityFunction(); f != "COSINE" {
		t.Errorf("default SimilarityFunction = %s", f)
	}
}
