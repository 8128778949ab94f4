package exec

import (
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// lockRowsOp locks the master row behind each input row through
// Ctx.Hooks.LockRow (SELECT ... FOR UPDATE / FOR SHARE) and passes the row on,
// or drops it when SKIP LOCKED found it held.
type lockRowsOp struct {
	rs    *runState
	input Operator
	node  *planner.LockRows
	pk    []types.Datum
	key   []byte
}

var _ Operator = (*lockRowsOp)(nil)

func (o *lockRowsOp) Next() ([]types.Datum, error) {
	for {
		row, err := o.input.Next()
		if row == nil || err != nil {
			return nil, err
		}
		if o.rs.ctx.Hooks == nil {
			return row, nil
		}
		o.pk = o.pk[:0]
		for _, i := range o.node.Key {
			o.pk = append(o.pk, row[i])
		}
		o.key = index.MasterKey(o.key[:0], o.node.Table, o.pk)
		locked, err := o.rs.ctx.Hooks.LockRow(o.node.Table, o.key, o.node.Lock)
		if err != nil {
			return nil, err
		}
		if locked {
			return row, nil
		}
	}
}

func (o *lockRowsOp) Close() error { return o.input.Close() }
