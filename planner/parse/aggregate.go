package parse

import (
	"strings"

	"github.com/kvsql/kvsql/pgerror"
)

// AggregateStmt is CREATE [OR REPLACE] AGGREGATE or DROP AGGREGATE.
type AggregateStmt struct {
	Drop      bool
	OrReplace bool
	// Name and Args are CREATE's aggregate and its input types.
	Name string
	Args []RoutineArg
	// SFunc, SType, FinalFunc and InitCond are CREATE's options (InitCond
	// nil when not written). A function may be written with argument
	// types, which are dropped: the aggregate resolves it by its state
	// and input types.
	SFunc, SType, FinalFunc string
	InitCond                *string
	// Targets, IfExists and Cascade are DROP's.
	Targets  []RoutineRef
	IfExists bool
	Cascade  bool
}

// aggregate parses CREATE [OR REPLACE] AGGREGATE name (argtypes)
// (option = value, ...), the old form CREATE AGGREGATE name (BASETYPE =
// type, option = value, ...), and DROP AGGREGATE [IF EXISTS] name
// (argtypes) [, ...] [CASCADE | RESTRICT].
func (r *rewriter) aggregate(toks []token) (Statement, error) {
	as := &AggregateStmt{}
	st := Statement{Aggregate: as}
	c := &cursor{r: r, toks: toks, i: 1}
	if toks[0].is("drop") {
		as.Drop = true
		c.i = 2
		var err error
		as.IfExists, as.Cascade, err = c.dropList(func() error {
			ref, err := c.aggregateRef()
			as.Targets = append(as.Targets, ref)
			return err
		})
		return st, err
	}
	if c.accept("or") {
		if err := c.expect("replace"); err != nil {
			return st, err
		}
		as.OrReplace = true
	}
	if err := c.expect("aggregate"); err != nil {
		return st, err
	}
	var err error
	if as.Name, err = c.routineName(); err != nil {
		return st, err
	}
	items, err := c.parenItems()
	if err != nil {
		return st, err
	}
	oldForm := len(items) > 0 && len(items[0]) > 1 && items[0][1].isOp("=")
	if !oldForm {
		if as.Args, err = c.aggregateArgs(items); err != nil {
			return st, err
		}
		if items, err = c.parenItems(); err != nil {
			return st, err
		}
	}
	for _, item := range items {
		if err := c.aggregateOption(as, item); err != nil {
			return st, err
		}
	}
	if as.SFunc == "" || as.SType == "" {
		return st, pgerror.Newf(pgerror.InvalidFunctionDefinition, "aggregate %s must be specified", map[bool]string{true: "sfunc", false: "stype"}[as.SFunc == ""])
	}
	return st, c.end()
}

// aggregateRef reads DROP AGGREGATE's name (argtypes), where (*) is no
// arguments.
func (c *cursor) aggregateRef() (RoutineRef, error) {
	ref := RoutineRef{HasArgs: true}
	var err error
	if ref.Name, err = c.routineName(); err != nil {
		return ref, err
	}
	items, err := c.parenItems()
	if err != nil {
		return ref, err
	}
	ref.Args, err = c.aggregateArgs(items)
	return ref, err
}

// aggregateArgs reads an aggregate's input types: ( * ) is none; ORDER
// BY (an ordered-set aggregate) is not supported.
func (c *cursor) aggregateArgs(items [][]token) ([]RoutineArg, error) {
	if len(items) == 1 && len(items[0]) == 1 && items[0][0].isOp("*") {
		return nil, nil
	}
	var args []RoutineArg
	for _, item := range items {
		for _, t := range item {
			if t.is("order") {
				return nil, pgerror.New(pgerror.FeatureNotSupported, "ordered-set aggregates (CREATE AGGREGATE ... ORDER BY) are not supported")
			}
		}
		a, err := c.routineArg(item, true)
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	return args, nil
}

// aggregateOption reads one option = value of CREATE AGGREGATE.
func (c *cursor) aggregateOption(as *AggregateStmt, item []token) error {
	sql := c.r.sql
	if len(item) == 0 {
		return c.errHere() // an empty item: (a = b, )
	}
	if len(item) < 3 || !item[1].isOp("=") {
		at := item[0]
		if len(item) > 1 {
			at = item[1]
		}
		return syntaxErr(sql, at.pos, "syntax error at or near %q", tokText(sql, at))
	}
	key := strings.ToLower(item[0].val)
	value := item[2:]
	text := sql[value[0].pos:value[len(value)-1].end]
	// funcName is a function's name, without argument types written
	// after it.
	funcName := func() (string, error) {
		sub := &cursor{r: c.r, toks: value}
		name, err := sub.routineName()
		if err != nil {
			return "", err
		}
		if !sub.done() && sub.toks[sub.i].isPunct("(") {
			if _, err := sub.routineArgs(true); err != nil {
				return "", err
			}
		}
		return name, sub.end()
	}
	var err error
	switch key {
	case "sfunc", "sfunc1":
		as.SFunc, err = funcName()
	case "finalfunc", "finalfunc1":
		as.FinalFunc, err = funcName()
	case "stype", "stype1":
		sub := &cursor{r: c.r, toks: value}
		if as.SType, err = sub.typeSpelling(); err == nil {
			err = sub.end()
		}
	case "basetype":
		if strings.EqualFold(text, "any") || strings.EqualFold(text, `"any"`) {
			return nil // no input: count(*)'s form
		}
		var a RoutineArg
		if a, err = c.routineArg(value, true); err == nil {
			as.Args = []RoutineArg{a}
		}
	case "initcond", "initcond1":
		if value[0].kind != tkString || len(value) != 1 {
			v := text // a number written bare
			as.InitCond = &v
			return nil
		}
		v := value[0].val
		as.InitCond = &v
	case "parallel", "combinefunc", "serialfunc", "deserialfunc", "sspace", "finalfunc_modify", "msfunc", "minvfunc", "mstype", "msspace", "mfinalfunc", "mfinalfunc_modify", "minitcond", "sortop":
		// Ways to run it faster or in a window frame's moving form, which
		// kvsql does not need: it runs SFUNC over every row.
	case "finalfunc_extra", "mfinalfunc_extra", "hypothetical":
		return pgerror.Newf(pgerror.FeatureNotSupported, "aggregate option %s is not supported", strings.ToUpper(key))
	}
	// PostgreSQL warns of an attribute it does not know and goes on.
	return err
}
