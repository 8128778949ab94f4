package eval

import (
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

func toChar(env *Env, x types.Datum, t types.T, format string) (types.Datum, error) {
	return types.Null, pgerror.New(pgerror.FeatureNotSupported, "to_char is not supported yet")
}

func toDate(s, format string) (types.Datum, error) {
	return types.Null, pgerror.New(pgerror.FeatureNotSupported, "to_date is not supported yet")
}

func toTimestamp(env *Env, s, format string) (types.Datum, error) {
	return types.Null, pgerror.New(pgerror.FeatureNotSupported, "to_timestamp is not supported yet")
}
