package exec

import (
	"math"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// regrState is the state of the two-argument statistics aggregates of
// the SQL standard — corr, covar_pop, covar_samp and the regr_* family —
// over the rows where both Y (the first argument) and X are non-NULL.
// It keeps what PostgreSQL's float8_regr_accum keeps: N, Sx, Sy and the
// sums of squares and products of deviations Sxx, Syy and Sxy, updated
// by the Youngs-Cramer method, so results match PostgreSQL's to the
// last bit.
type regrState struct {
	fn                       string
	n, sx, sy, sxx, syy, sxy float64
}

func (s *regrState) add(args []types.Datum) (int64, error) {
	y, x := args[0], args[1]
	if y.IsNull() || x.IsNull() {
		return 0, nil
	}
	if y.Kind != types.KindFloat || x.Kind != types.KindFloat {
		return 0, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s, %s) does not exist", s.fn, y.Kind, x.Kind)
	}
	oldN, oldSx, oldSy := s.n, s.sx, s.sy
	s.n++
	s.sx += x.F
	s.sy += y.F
	if oldN == 0 {
		// A first input that is Inf or NaN makes the dependent sums NaN,
		// or a single row would report no variance.
		if math.IsNaN(x.F) || math.IsInf(x.F, 0) {
			s.sxx, s.sxy = math.NaN(), math.NaN()
		}
		if math.IsNaN(y.F) || math.IsInf(y.F, 0) {
			s.syy, s.sxy = math.NaN(), math.NaN()
		}
		return 0, nil
	}
	tx, ty := x.F*s.n-s.sx, y.F*s.n-s.sy
	scale := 1 / (s.n * oldN)
	s.sxx += tx * tx * scale
	s.syy += ty * ty * scale
	s.sxy += tx * ty * scale
	inf := math.IsInf
	if inf(s.sx, 0) || inf(s.sxx, 0) || inf(s.sy, 0) || inf(s.syy, 0) || inf(s.sxy, 0) {
		// Finite inputs that overflow are an error; infinite inputs make
		// the sums of squares NaN rather than infinite.
		finiteX, finiteY := !inf(oldSx, 0) && !inf(x.F, 0), !inf(oldSy, 0) && !inf(y.F, 0)
		if ((inf(s.sx, 0) || inf(s.sxx, 0)) && finiteX) || ((inf(s.sy, 0) || inf(s.syy, 0)) && finiteY) ||
			(inf(s.sxy, 0) && finiteX && finiteY) {
			return 0, pgerror.New(pgerror.NumericValueOutOfRange, "value out of range: overflow")
		}
		for _, v := range []*float64{&s.sxx, &s.syy, &s.sxy} {
			if inf(*v, 0) {
				*v = math.NaN()
			}
		}
	}
	return 0, nil
}

func (s *regrState) result() (types.Datum, error) {
	if s.fn == "regr_count" {
		return types.NewInt(int64(s.n)), nil
	}
	if s.n < 1 || (s.fn == "covar_samp" && s.n < 2) {
		return types.Null, nil
	}
	var v float64
	switch s.fn {
	case "regr_sxx":
		v = s.sxx
	case "regr_syy":
		v = s.syy
	case "regr_sxy":
		v = s.sxy
	case "regr_avgx":
		v = s.sx / s.n
	case "regr_avgy":
		v = s.sy / s.n
	case "covar_pop":
		v = s.sxy / s.n
	case "covar_samp":
		v = s.sxy / (s.n - 1)
	case "corr":
		// The standard answers NULL for horizontal and vertical lines.
		if s.sxx == 0 || s.syy == 0 {
			return types.Null, nil
		}
		v = s.sxy / math.Sqrt(s.sxx*s.syy)
	case "regr_r2":
		if s.sxx == 0 {
			return types.Null, nil
		}
		if s.syy == 0 {
			return types.NewFloat(1), nil
		}
		v = s.sxy * s.sxy / (s.sxx * s.syy)
	case "regr_slope":
		if s.sxx == 0 {
			return types.Null, nil
		}
		v = s.sxy / s.sxx
	case "regr_intercept":
		if s.sxx == 0 {
			return types.Null, nil
		}
		v = (s.sy - s.sx*s.sxy/s.sxx) / s.n
	}
	return types.NewFloat(v), nil
}
