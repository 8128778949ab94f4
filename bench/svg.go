package bench

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strings"
)

// Bar is one labelled group of bars, one per system.
type Bar struct {
	Label  string
	Values map[string]float64 // by system; missing or non-positive values draw no bar
}

// Series is one line of a line chart.
type Series struct {
	Name   string
	Points [][2]float64 // (x, y), x ascending
}

// systemColors are the fixed colours of the systems in every plot.
var systemColors = map[string]string{"kvsql": "#1f77b4", "postgres": "#ff7f0e", "sqlite": "#2ca02c"}

func colorOf(name string, i int) string {
	if c, ok := systemColors[name]; ok {
		return c
	}
	palette := []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"}
	return palette[i%len(palette)]
}

func esc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// BarChartSVG draws horizontal grouped bars on a logarithmic axis (the
// workloads' figures span orders of magnitude), one group per Bar, one bar
// per system in systems' order, each labelled with its value.
func BarChartSVG(title, unit string, bars []Bar, systems []string) []byte {
	const (
		left, right, top, barH, gap = 300, 120, 50, 12, 10
		plotW                       = 520
	)
	groupH := barH*len(systems) + gap
	height := top + groupH*len(bars) + 40
	width := left + plotW + right
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range bars {
		for _, v := range b.Values {
			if v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 1, 10
	}
	lo = math.Pow(10, math.Floor(math.Log10(lo)))
	hi = math.Pow(10, math.Ceil(math.Log10(hi)))
	if hi <= lo {
		hi = lo * 10
	}
	x := func(v float64) float64 {
		return plotW * (math.Log10(v) - math.Log10(lo)) / (math.Log10(hi) - math.Log10(lo))
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", 10, esc(title))
	for i, s := range systems {
		fmt.Fprintf(&b, `<rect x="%d" y="30" width="10" height="10" fill="%s"/><text x="%d" y="39">%s</text>`+"\n", left+i*110, colorOf(s, i), left+i*110+14, esc(s))
	}
	// Decade grid lines.
	for d := lo; d <= hi*1.0001; d *= 10 {
		gx := left + x(d)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", gx, top, gx, height-35)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", gx, height-22, esc(fmtNum(d)))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s (log scale)</text>`+"\n", left+plotW/2, height-6, esc(unit))
	for gi, bar := range bars {
		y0 := top + gi*groupH
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-6, y0+groupH/2, esc(bar.Label))
		for si, s := range systems {
			v, ok := bar.Values[s]
			if !ok || !(v > 0) {
				continue
			}
			y := y0 + si*barH
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %s: %s</title></rect>`+"\n",
				left, y, math.Max(1, x(v)), barH-2, colorOf(s, si), esc(bar.Label), esc(s), esc(fmtNum(v)))
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="9">%s</text>`+"\n", float64(left)+math.Max(1, x(v))+3, y+barH-3, esc(fmtNum(v)))
		}
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// LineChartSVG draws series on log-log axes with a marker at each point.
// A series is coloured by the system its name starts with and dashed when
// its name mentions an index.
func LineChartSVG(title, xLabel, yLabel string, series []Series) []byte {
	const (
		left, top, plotW, plotH = 70, 50, 560, 300
	)
	width, height := left+plotW+180, top+plotH+50
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, p := range s.Points {
			if p[0] > 0 && p[1] > 0 {
				xlo, xhi = math.Min(xlo, p[0]), math.Max(xhi, p[0])
				ylo, yhi = math.Min(ylo, p[1]), math.Max(yhi, p[1])
			}
		}
	}
	if math.IsInf(xlo, 0) {
		xlo, xhi, ylo, yhi = 1, 10, 1, 10
	}
	decades := func(lo, hi float64) (float64, float64) {
		lo, hi = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
		if hi <= lo {
			hi = lo * 10
		}
		return lo, hi
	}
	xlo, xhi = decades(xlo, xhi)
	ylo, yhi = decades(ylo, yhi)
	px := func(v float64) float64 {
		return left + plotW*(math.Log10(v)-math.Log10(xlo))/(math.Log10(xhi)-math.Log10(xlo))
	}
	py := func(v float64) float64 {
		return top + plotH - plotH*(math.Log10(v)-math.Log10(ylo))/(math.Log10(yhi)-math.Log10(ylo))
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", esc(title))
	for d := xlo; d <= xhi*1.0001; d *= 10 {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n",
			px(d), top, px(d), top+plotH, px(d), top+plotH+15, esc(fmtNum(d)))
	}
	for d := ylo; d <= yhi*1.0001; d *= 10 {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
			left, py(d), left+plotW, py(d), left-5, py(d)+4, esc(fmtNum(d)))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", left+plotW/2, top+plotH+35, esc(xLabel))
	fmt.Fprintf(&b, `<text x="15" y="%d" transform="rotate(-90 15 %d)" text-anchor="middle">%s</text>`+"\n", top+plotH/2, top+plotH/2, esc(yLabel))
	for i, s := range series {
		c := seriesColor(s.Name, i)
		var pts bytes.Buffer
		for _, p := range s.Points {
			if p[0] > 0 && p[1] > 0 {
				fmt.Fprintf(&pts, "%.1f,%.1f ", px(p[0]), py(p[1]))
			}
		}
		// Colour tells the system, the stroke the query: index lookups dashed.
		dash := ""
		if strings.Contains(s.Name, "index") {
			dash = ` stroke-dasharray="5,3"`
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", bytes.TrimSpace(pts.Bytes()), c, dash)
		for _, p := range s.Points {
			if p[0] > 0 && p[1] > 0 {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s: %s rows, %s</title></circle>`+"\n",
					px(p[0]), py(p[1]), c, esc(s.Name), esc(fmtNum(p[0])), esc(fmtNum(p[1])))
			}
		}
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/><text x="%d" y="%d">%s</text>`+"\n",
			left+plotW+10, top+10+i*18, left+plotW+30, top+10+i*18, c, dash, left+plotW+35, top+14+i*18, esc(s.Name))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// seriesColor colours a series by the system its name starts with.
func seriesColor(name string, i int) string {
	sys, _, _ := strings.Cut(name, " ")
	return colorOf(sys, i)
}

// fmtNum prints a figure with three significant digits, without
// exponents for the usual range.
func fmtNum(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case v == 0:
		return "0"
	case math.Abs(v) >= 1e5:
		return fmt.Sprintf("%.3g", v)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.3g", v)
	default:
		return fmt.Sprintf("%.2g", v)
	}
}
