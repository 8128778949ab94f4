package exec

import (
	"strings"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/types"
)

// TestFailingRowClipped: a "Failing row contains" detail shows each value
// up to 64 bytes, cut at a character boundary with "..." after it, as
// PostgreSQL's ExecBuildValueDescription (its output for (1, 60 × 'é',
// -1) is this test's want).
func TestFailingRowClipped(t *testing.T) {
	text := types.T{Family: types.Text}
	tbl := &catalog.Table{Name: "ct", Columns: []catalog.Column{
		{Name: "a", Type: types.T{Family: types.Int4}}, {Name: "b", Type: text}, {Name: "c", Type: types.T{Family: types.Int4}}}}
	row := []types.Datum{types.NewInt(1), types.NewText(strings.Repeat("é", 60)), types.NewInt(-1)}
	if got, want := formatRow(tbl, row), "1, "+strings.Repeat("é", 32)+"..., -1"; got != want {
		t.Errorf("formatRow = %q, want %q", got, want)
	}
	row[1] = types.NewText(strings.Repeat("x", 64))
	if got, want := formatRow(tbl, row), "1, "+strings.Repeat("x", 64)+", -1"; got != want {
		t.Errorf("formatRow of a 64-byte value = %q, want %q", got, want)
	}
}
