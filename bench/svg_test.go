package bench

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// wellFormed decodes every token of doc and returns the number of
// elements named name.
func wellFormed(t *testing.T, doc []byte, name string) int {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	n := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, doc)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == name {
			n++
		}
	}
}

func TestBarChartSVG(t *testing.T) {
	bars := []Bar{
		{Label: "point select <c=8> & friends", Values: map[string]float64{"kvsql": 40000, "postgres": 70000}},
		{Label: "bulk load", Values: map[string]float64{"kvsql": 1.8e5, "postgres": 0, "sqlite": 3e5}},
	}
	doc := BarChartSVG("Throughput", "ops/s", bars, []string{"kvsql", "postgres", "sqlite"})
	// 3 legend swatches + 1 background + 4 positive values.
	if got := wellFormed(t, doc, "rect"); got != 8 {
		t.Errorf("%d rect elements, want 8", got)
	}
	if !strings.Contains(string(doc), "&lt;c=8&gt; &amp; friends") {
		t.Errorf("label not escaped:\n%s", doc)
	}
}

func TestLineChartSVG(t *testing.T) {
	doc := LineChartSVG("Scaling", "rows", "ms", []Series{
		{Name: "kvsql point select", Points: [][2]float64{{1e4, 0.05}, {1e5, 0.06}, {1e6, 0.07}}},
		{Name: "postgres point select", Points: [][2]float64{{1e4, 0.04}, {1e5, 0.04}, {1e6, 0}}},
	})
	if got := wellFormed(t, doc, "polyline"); got != 2 {
		t.Errorf("%d polylines, want 2", got)
	}
	// Points with a zero value are skipped, not drawn at -Inf.
	if got := wellFormed(t, doc, "circle"); got != 5 {
		t.Errorf("%d circles, want 5", got)
	}
	if strings.Contains(string(doc), "Inf") || strings.Contains(string(doc), "NaN") {
		t.Errorf("non-finite coordinates:\n%s", doc)
	}
}

func TestEmptyCharts(t *testing.T) {
	wellFormed(t, BarChartSVG("none", "x", nil, []string{"kvsql"}), "svg")
	wellFormed(t, LineChartSVG("none", "x", "y", nil), "svg")
}
