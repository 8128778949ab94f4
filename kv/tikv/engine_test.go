package tikv

import (
	"testing"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/kv/kvtest"
)

// mockKind opens engines on a fresh mock cluster of 16 regions that also
// splits as data arrives, so the suites' scans cross region boundaries
// and their batches commit across regions.
func mockKind() kvtest.Kind {
	return kvtest.Kind{Name: "tikv-mock", Open: func(t testing.TB, _ string) kv.Engine {
		m, err := OpenMock(MockOptions{Regions: 16, SplitEvery: 3})
		if err != nil {
			t.Fatal(err)
		}
		return m.Engine
	}}
}

func TestConformance(t *testing.T) { kvtest.Conformance(t, []kvtest.Kind{mockKind()}) }

func TestDifferential(t *testing.T) { kvtest.Differential(t, []kvtest.Kind{mockKind()}, 1500) }
