package session

import (
	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/planner"
)

// treeCache holds a prepared statement's operator tree between its
// executions (exec.Reusable): a query executed again reruns the tree
// instead of building it, when its plan is the one the tree was built for
// and no open portal runs the tree.
type treeCache struct {
	// plan is the plan BuildReusable was last tried on; tree is its
	// result, nil when that plan's tree cannot rerun (then Build).
	plan planner.Node
	tree *exec.Reusable
	// env is the executor context of the tree's runs (execCtxIn): free
	// whenever the tree is.
	env stmtEnv
}

// freeEnv returns the stmtEnv for the next execution of plan when that
// execution will rerun the kept tree (so the previous run, which used
// env, is closed), else nil: the execution makes its own.
func (c *treeCache) freeEnv(plan planner.Node, volatile bool) *stmtEnv {
	if c == nil || volatile || c.plan != plan || c.tree == nil || c.tree.Busy() {
		return nil
	}
	return &c.env
}

// build returns the operator tree for one execution of plan under ec.
// A nil cache, or a volatile plan (remade at every execution), builds.
func (c *treeCache) build(ec *exec.Ctx, plan planner.Node, volatile bool) (exec.Operator, error) {
	if c == nil || volatile {
		return exec.Build(ec, plan)
	}
	if c.plan == plan {
		if c.tree == nil {
			return exec.Build(ec, plan) // this plan's tree cannot rerun
		}
		if op := c.tree.Rerun(ec); op != nil {
			return op, nil
		}
		return exec.Build(ec, plan) // a second open portal of the statement
	}
	op, tree, err := exec.BuildReusable(ec, plan)
	if err != nil {
		return nil, err
	}
	c.plan, c.tree = plan, tree
	return op, nil
}
