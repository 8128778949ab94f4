package crashtest

import (
	"context"
	"fmt"
	"math/rand"
	"sort"

	"github.com/jackc/pgx/v5"
)

// row is the indexed part of an items row.
type row struct {
	val int
	tag string
}

// txnOps is one client transaction: an insert, maybe an update and maybe
// a delete of the client's own rows, and the log row (client, n).
type txnOps struct {
	n       int
	insert  int // id
	ins     row
	update  int // id, or -1
	upd     row
	delete  int // id, or -1
	sqlText []string
}

// clientModel is what one client's rows must be: the effect of every
// acknowledged (or, after a kill, resolved) transaction. Each client
// writes only ids it owns (client*1e6 + n), so the models are independent.
type clientModel struct {
	client int
	rows   map[int]row
	ids    []int // keys of rows, sorted: deterministic random choices
	next   int   // number of the next transaction
	commit int   // number of committed transactions
	// pending is the transaction whose COMMIT got no answer: the kill
	// decides whether it happened.
	pending *txnOps
}

func newClientModel(client int) *clientModel {
	return &clientModel{client: client, rows: map[int]row{}}
}

// gen makes the client's next transaction.
func (m *clientModel) gen(r *rand.Rand) *txnOps {
	n := m.next
	op := &txnOps{n: n, insert: m.client*1_000_000 + n, update: -1, delete: -1}
	op.ins = row{val: r.Intn(1000), tag: fmt.Sprintf("i%d-%d", m.client, n)}
	q := []string{"BEGIN", fmt.Sprintf("INSERT INTO items VALUES (%d, %d, %d, '%s')", op.insert, m.client, op.ins.val, op.ins.tag)}
	if len(m.ids) > 0 {
		op.update = m.ids[r.Intn(len(m.ids))]
		op.upd = row{val: r.Intn(1000), tag: fmt.Sprintf("u%d-%d", m.client, n)}
		q = append(q, fmt.Sprintf("UPDATE items SET val = %d, tag = '%s' WHERE id = %d", op.upd.val, op.upd.tag, op.update))
	}
	if len(m.ids) > 1 && r.Intn(3) == 0 {
		if d := m.ids[r.Intn(len(m.ids))]; d != op.update {
			op.delete = d
			q = append(q, fmt.Sprintf("DELETE FROM items WHERE id = %d", d))
		}
	}
	q = append(q, fmt.Sprintf("INSERT INTO txlog VALUES (%d, %d)", m.client, n), "COMMIT")
	op.sqlText = q
	return op
}

// apply records a committed transaction.
func (m *clientModel) apply(op *txnOps) {
	m.rows[op.insert] = op.ins
	if op.update >= 0 {
		m.rows[op.update] = op.upd
	}
	if op.delete >= 0 {
		delete(m.rows, op.delete)
	}
	m.ids = m.ids[:0]
	for id := range m.rows {
		m.ids = append(m.ids, id)
	}
	sort.Ints(m.ids)
	m.commit++
	m.next = op.n + 1
}

// resolve decides the pending transaction from its log row.
func (m *clientModel) resolve(ctx context.Context, c *pgx.Conn) (committed bool, err error) {
	if m.pending == nil {
		return false, nil
	}
	var n int
	err = c.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM txlog WHERE client = %d AND n = %d", m.client, m.pending.n)).Scan(&n)
	if err != nil {
		return false, err
	}
	if n == 1 {
		m.apply(m.pending)
	} else {
		m.next = m.pending.n + 1 // the number may be reused; keep it unique anyway
	}
	m.pending = nil
	return n == 1, nil
}
