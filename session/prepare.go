package session

import (
	"context"

	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
	"vitess.io/vitess/go/vt/sqlparser"
)

// SQL-level prepared statements (PREPARE / EXECUTE / DEALLOCATE) live in
// the session until DEALLOCATE or the end of the session, like the wire
// protocol's named statements, whose machinery they share.

func (s *Session) preparedColumns(p *parse.Statement) []backend.Column {
	if p.Execute == nil {
		return nil
	}
	if st, ok := s.prepared[p.Execute.Name]; ok {
		return st.Columns()
	}
	return nil
}

func (s *Session) preparedStmt(ctx context.Context, p *parse.Statement) (backend.Result, error) {
	switch {
	case p.Prepare != nil:
		if _, dup := s.prepared[p.Prepare.Name]; dup {
			return nil, pgerror.Newf(pgerror.DuplicatePreparedStatement, "prepared statement %q already exists", p.Prepare.Name)
		}
		stmts, err := parse.Parse(p.Prepare.Body)
		if err != nil {
			return nil, err
		}
		if len(stmts) != 1 {
			return nil, pgerror.New(pgerror.SyntaxError, "PREPARE takes one statement")
		}
		st := &stmt{s: s, p: &stmts[0]}
		for _, tr := range p.Prepare.Types {
			t, err := planner.TypeFromName(tr.Name, tr.Length, tr.Scale)
			if err != nil {
				return nil, err
			}
			st.declared = append(st.declared, t)
		}
		switch st.kind() {
		case kindPlan, kindExplain:
			if err := st.ensurePlan(s.catalog()); err != nil {
				return nil, err
			}
		default:
			return nil, pgerror.New(pgerror.SyntaxError, "PREPARE takes SELECT, INSERT, UPDATE, DELETE or VALUES")
		}
		if s.prepared == nil {
			s.prepared = map[string]*stmt{}
		}
		s.prepared[p.Prepare.Name] = st
		return &staticResult{tag: "PREPARE"}, nil
	case p.Deallocate != nil:
		if p.Deallocate.Name == "" {
			s.prepared = nil
			s.deallocatedAll = true // the wire's statements too (DeallocatedAll)
			return &staticResult{tag: "DEALLOCATE ALL"}, nil
		}
		if _, ok := s.prepared[p.Deallocate.Name]; !ok {
			return nil, pgerror.Newf(pgerror.InvalidSQLStatementName, "prepared statement %q does not exist", p.Deallocate.Name)
		}
		delete(s.prepared, p.Deallocate.Name)
		return &staticResult{tag: "DEALLOCATE"}, nil
	}
	e := p.Execute
	st, ok := s.prepared[e.Name]
	if !ok {
		return nil, pgerror.Newf(pgerror.InvalidSQLStatementName, "prepared statement %q does not exist", e.Name)
	}
	oids := st.ParamOIDs()
	if len(e.Args) != len(oids) {
		err := pgerror.Newf(pgerror.SyntaxError, "wrong number of parameters for prepared statement %q", e.Name)
		err.Detail = "Expected " + itoa(int64(len(oids))) + " parameters but got " + itoa(int64(len(e.Args))) + "."
		return nil, err
	}
	params, err := s.evalArgs(ctx, e.Args, oids)
	if err != nil {
		return nil, err
	}
	// execute, not Execute: the session is already active running the
	// EXECUTE statement (pg_stat_activity shows its text).
	return st.execute(ctx, params)
}

// evalArgs evaluates EXECUTE's arguments and casts each to its
// parameter's type.
func (s *Session) evalArgs(ctx context.Context, args []sqlparser.Expr, oids []uint32) ([]types.Datum, error) {
	if len(args) == 0 {
		return nil, nil
	}
	sel := &sqlparser.Select{SelectExprs: &sqlparser.SelectExprs{}}
	for _, a := range args {
		sel.SelectExprs.Exprs = append(sel.SelectExprs.Exprs, &sqlparser.AliasedExpr{Expr: a})
	}
	var row []types.Datum
	err := s.inTxn(func(t *txn) error {
		plan, _, err := s.planner(t.cat).Plan(&parse.Statement{AST: sel}, nil)
		if err != nil {
			return err
		}
		op, err := exec.Build(s.execCtx(ctx, t, nil), plan)
		if err != nil {
			return err
		}
		_, err = exec.Drain(op, func(r []types.Datum) { row = append([]types.Datum(nil), r...) })
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, oid := range oids {
		t, _ := types.TypeByOID(oid)
		if row[i].IsNull() || t.Family == types.Unknown {
			continue
		}
		if row[i], err = eval.Cast(row[i], t); err != nil {
			return nil, err
		}
	}
	return row, nil
}

// DeallocatedAll implements backend.Deallocator.
func (s *Session) DeallocatedAll() bool {
	all := s.deallocatedAll
	s.deallocatedAll = false
	return all
}
