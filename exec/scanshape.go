package exec

import (
	"sync"

	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/planner"
)

// maxScanShapes bounds a ScanShapes: scans built from copies of a plan's
// node (a memoized scan's build pass) are new pointers every time and
// are not kept.
const maxScanShapes = 64

// ScanShapes keeps, for the scan nodes of one plan, the read sets newScan
// derives from the node alone (the columns it decodes, and the split of
// a filtered scan into the filter's columns and the rest), so that a
// prepared statement executed again builds its scans without walking
// the filter and allocating them anew. Its owner — the session's
// prepared statement — makes a new one whenever it makes a new plan: a
// shape is valid only for the node (and the table) it was derived from.
//
// The read sets are immutable once made; the map is guarded, so a plan
// may be built from several goroutines. A nil *ScanShapes derives every
// time.
type ScanShapes struct {
	mu     sync.Mutex
	shapes map[*planner.Scan]scanShape
}

// scanShape is what newScan derives from a planner.Scan.
type scanShape struct {
	cols, early, late *index.Cols
}

func deriveScanShape(n *planner.Scan) scanShape {
	sh := scanShape{cols: index.NewCols(n.Table, n.Needed)}
	sh.early, sh.late = lateColumns(n)
	return sh
}

// shape returns n's shape, derived on first use.
func (c *ScanShapes) shape(n *planner.Scan) scanShape {
	if c == nil {
		return deriveScanShape(n)
	}
	c.mu.Lock()
	sh, ok := c.shapes[n]
	c.mu.Unlock()
	if ok {
		return sh
	}
	sh = deriveScanShape(n)
	c.mu.Lock()
	if c.shapes == nil {
		c.shapes = map[*planner.Scan]scanShape{}
	}
	if len(c.shapes) < maxScanShapes {
		c.shapes[n] = sh
	}
	c.mu.Unlock()
	return sh
}
