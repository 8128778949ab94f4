package planner

import "github.com/kvsql/kvsql/types"

var (
	tBool   = types.T{Family: types.Bool}
	tInt2   = types.T{Family: types.Int2}
	tInt4   = types.T{Family: types.Int4}
	tInt8   = types.T{Family: types.Int8}
	tFloat8 = types.T{Family: types.Float8}
	tText   = types.T{Family: types.Text}
	tBytea  = types.T{Family: types.Bytea}
	tDate   = types.T{Family: types.Date}
	tTS     = types.T{Family: types.Timestamp}
	tTSTZ   = types.T{Family: types.TimestampTZ}
	tUnk    = types.T{Family: types.Unknown}
)

// isAggregate reports whether name is an aggregate function.
func isAggregate(name string) bool {
	switch name {
	case "count", "sum", "avg", "min", "max", "string_agg", "array_agg", "percentile_cont", "percentile_disc", "mode", "bool_and", "bool_or", "every", "total", "group_concat",
		"stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop",
		"jsonb_agg", "json_agg", "jsonb_object_agg", "json_object_agg",
		"corr", "covar_pop", "covar_samp", "regr_count", "regr_sxx", "regr_syy", "regr_sxy",
		"regr_avgx", "regr_avgy", "regr_r2", "regr_slope", "regr_intercept":
		return true
	}
	return false
}
