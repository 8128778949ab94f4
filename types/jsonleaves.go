package types

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// JSONLeaves lists the distinct leaves of a JSON document for an inverted
// index over a jsonb column: each scalar with the object keys on its path
// (array positions left out, so an array's elements share their path,
// as in PostgreSQL's jsonb_path_ops), written as a JSON array of the keys
// followed by the scalar: {"a": {"b": [1, "x"]}} has ["a","b",1] and
// ["a","b","x"]. If a document contains another
// (@>), it has every leaf of the other, so the inverted list of any one
// leaf of a query holds every row that can match it. Numbers are in one
// canonical form (1.0 and 1 are one leaf, as jsonb compares them). ok is
// false when doc is not JSON.
func JSONLeaves(doc string) (leaves []string, ok bool) {
	d := json.NewDecoder(strings.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	seen := map[string]bool{}
	var path []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				path = append(path, k)
				walk(e)
				path = path[:len(path)-1]
			}
			return
		case []any:
			for _, e := range x {
				walk(e)
			}
			return
		}
		leaf := make([]any, 0, len(path)+1)
		for _, p := range path {
			leaf = append(leaf, p)
		}
		if n, isNum := v.(json.Number); isNum {
			var d apd.Decimal
			if _, _, err := d.SetString(string(n)); err == nil {
				d.Reduce(&d)
				if d.IsZero() {
					d.Negative = false
				}
				v = json.Number(d.Text('f'))
			}
		}
		leaf = append(leaf, v)
		text, err := json.Marshal(leaf)
		if err != nil {
			return
		}
		seen[string(text)] = true
	}
	walk(v)
	for l := range seen {
		leaves = append(leaves, l)
	}
	sort.Strings(leaves)
	return leaves, true
}
