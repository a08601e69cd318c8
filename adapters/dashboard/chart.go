package dashboard

import (
	"fmt"
	"hash/fnv"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/heraldhq/herald/domain"
)

// The timeline chart's geometry, in viewBox units. The SVG scales to its
// container's width; these only fix the proportions.
const (
	chartWidth    = 720
	chartHeight   = 240
	plotLeft      = 48  // room for the y-axis labels
	plotRight     = 696 // room for half an x-axis label at the last point
	plotTop       = 16
	plotBottom    = 184
	xTickY        = 200 // baseline of the x-axis labels
	legendY       = 226 // baseline of the legend
	legendSpacing = 112
	minLabelGap   = 64 // the least room between two x-axis labels
	maxDotPoints  = 48 // above this many points the dots would blur into the line
)

// timelineChart draws a campaign's timeline as an inline SVG: one line per
// status in domain.TimelineStatuses, a y axis from 0 to a rounded-up
// maximum, x-axis labels in UTC and a legend.
//
// Colors come from CSS only, through the series-<status> class on each
// series' group: the line's stroke and the dots' fill are currentColor, so
// the stylesheet sets `color` on .series-sent and friends. The other
// classes are axis (axis lines), grid (horizontal guides) and tick (all
// text). Title and desc label the image for assistive technology; the desc
// states the totals per status, so the chart's content is not only visual.
func timelineChart(tl domain.Timeline) template.HTML {
	statuses := domain.TimelineStatuses()
	interval := chartInterval(tl)
	title := "Messages per hour"
	if interval >= domain.IntervalDay {
		title = "Messages per day"
	}

	var body strings.Builder
	if len(tl.Points) == 0 {
		writeText(&body, chartWidth/2, chartHeight/2, "tick", "middle", "No activity in this window")
		return wrapChart(title, "No activity in this window.", body.String())
	}

	totals := make([]int, len(statuses))
	highest := 0
	for _, p := range tl.Points {
		for i, s := range statuses {
			c := p.Counts[s]
			totals[i] += c
			highest = max(highest, c)
		}
	}
	yMax := niceCeil(highest)

	xAt := func(i int) float64 {
		if len(tl.Points) == 1 {
			return (plotLeft + plotRight) / 2
		}
		return plotLeft + float64(i)*(plotRight-plotLeft)/float64(len(tl.Points)-1)
	}
	yAt := func(c int) float64 {
		c = max(c, 0)
		return plotBottom - float64(c)/float64(yMax)*(plotBottom-plotTop)
	}

	// Guides and y-axis labels: 0, the maximum and, when it is a whole
	// number, the middle.
	yTicks := []int{0, yMax}
	if yMax%2 == 0 {
		yTicks = []int{0, yMax / 2, yMax}
	}
	for _, v := range yTicks {
		y := yAt(v)
		if v > 0 {
			fmt.Fprintf(&body, `<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>`, num(plotLeft), num(y), num(plotRight), num(y))
		}
		writeText(&body, plotLeft-6, y+4, "tick", "end", strconv.Itoa(v))
	}
	fmt.Fprintf(&body, `<line class="axis" x1="%s" y1="%s" x2="%s" y2="%s"/>`, num(plotLeft), num(plotTop), num(plotLeft), num(plotBottom))
	fmt.Fprintf(&body, `<line class="axis" x1="%s" y1="%s" x2="%s" y2="%s"/>`, num(plotLeft), num(plotBottom), num(plotRight), num(plotBottom))

	step := labelStep(len(tl.Points), interval)
	for i, p := range tl.Points {
		if !labelled(i, p.Start, step, interval) {
			continue
		}
		x := xAt(i)
		fmt.Fprintf(&body, `<line class="axis" x1="%s" y1="%s" x2="%s" y2="%s"/>`, num(x), num(plotBottom), num(x), num(plotBottom+4))
		writeText(&body, x, xTickY, "tick", "middle", xLabel(p.Start, interval))
	}

	for _, s := range statuses {
		fmt.Fprintf(&body, `<g class="series series-%s">`, html.EscapeString(s.String()))
		pts := make([]string, len(tl.Points))
		for i, p := range tl.Points {
			pts[i] = num(xAt(i)) + "," + num(yAt(p.Counts[s]))
		}
		fmt.Fprintf(&body, `<polyline fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round" points="%s"/>`, strings.Join(pts, " "))
		if len(tl.Points) <= maxDotPoints {
			for i, p := range tl.Points {
				fmt.Fprintf(&body, `<circle fill="currentColor" r="2.5" cx="%s" cy="%s"/>`, num(xAt(i)), num(yAt(p.Counts[s])))
			}
		}
		body.WriteString(`</g>`)
	}

	for i, s := range statuses {
		x := float64(plotLeft + i*legendSpacing)
		fmt.Fprintf(&body, `<g class="series series-%s"><line stroke="currentColor" stroke-width="3" x1="%s" y1="%s" x2="%s" y2="%s"/></g>`,
			html.EscapeString(s.String()), num(x), num(legendY-4), num(x+16), num(legendY-4))
		writeText(&body, x+22, legendY, "tick", "start", s.String())
	}

	return wrapChart(title, chartDesc(tl, interval, statuses, totals), body.String())
}

// wrapChart puts the drawing in its svg element, labelled by a title and a
// desc whose ids derive from the content, so the output is deterministic
// and two different charts on one page do not share ids.
func wrapChart(title, desc, body string) template.HTML {
	h := fnv.New32a()
	h.Write([]byte(title + "\x00" + desc + "\x00" + body))
	id := fmt.Sprintf("timeline-%08x", h.Sum32())

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="timeline" viewBox="0 0 %d %d" width="100%%" preserveAspectRatio="xMidYMid meet" font-size="11" role="img" aria-labelledby="%s-title %s-desc">`,
		chartWidth, chartHeight, id, id)
	fmt.Fprintf(&b, `<title id="%s-title">%s</title>`, id, html.EscapeString(title))
	fmt.Fprintf(&b, `<desc id="%s-desc">%s</desc>`, id, html.EscapeString(desc))
	b.WriteString(body)
	b.WriteString(`</svg>`)
	// Every dynamic value above went through html.EscapeString or is a
	// number formatted here.
	return template.HTML(b.String())
}

// chartDesc summarises the window for the desc element, e.g. "Over 24
// hours from Nov 23, 2025 15:00 UTC: 0 queued, 120 sent, 110 delivered, 80
// read, 2 failed."
func chartDesc(tl domain.Timeline, interval time.Duration, statuses []domain.MessageStatus, totals []int) string {
	start := tl.Points[0].Start.UTC()
	from := start.Format("Jan 2, 2006 15:04") + " UTC"
	if interval >= domain.IntervalDay {
		from = start.Format("Jan 2, 2006")
	}
	parts := make([]string, len(statuses))
	for i, s := range statuses {
		parts[i] = strconv.Itoa(totals[i]) + " " + s.String()
	}
	return fmt.Sprintf("Over %s from %s: %s.", windowLength(len(tl.Points), interval), from, strings.Join(parts, ", "))
}

// windowLength names the time n intervals cover: "24 hours", "1 day".
func windowLength(n int, interval time.Duration) string {
	total := time.Duration(n) * interval
	unit, count := "", 0
	switch {
	case interval%domain.IntervalDay == 0:
		unit, count = "day", int(total/domain.IntervalDay)
	case interval%time.Hour == 0:
		unit, count = "hour", int(total/time.Hour)
	default:
		return total.String()
	}
	if count != 1 {
		unit += "s"
	}
	return strconv.Itoa(count) + " " + unit
}

// chartInterval is the timeline's interval, or the distance between its
// first two points when the interval is not set.
func chartInterval(tl domain.Timeline) time.Duration {
	if tl.Interval > 0 {
		return tl.Interval
	}
	if len(tl.Points) >= 2 {
		if d := tl.Points[1].Start.Sub(tl.Points[0].Start); d > 0 {
			return d
		}
	}
	return domain.IntervalHour
}

// niceCeil rounds n up to 1, 2 or 5 times a power of ten, and is at least
// 1, so an all-zero timeline still has a y axis.
func niceCeil(n int) int {
	if n <= 1 {
		return 1
	}
	mag := 1
	for mag <= n/10 {
		mag *= 10
	}
	for _, m := range []int{1, 2, 5, 10} {
		if m*mag >= n {
			return m * mag
		}
	}
	return 10 * mag
}

// labelStep is how many points apart the x-axis labels are: 1 while every
// label fits, else a step that reads well for the interval (3, 6 or 12
// hours; 2 or 7 days).
func labelStep(n int, interval time.Duration) int {
	fits := (plotRight - plotLeft) / minLabelGap
	if n <= fits {
		return 1
	}
	raw := (n + fits - 1) / fits
	var nice []int
	var period int
	switch interval {
	case domain.IntervalHour:
		nice, period = []int{1, 2, 3, 4, 6, 8, 12, 24}, 24
	case domain.IntervalDay:
		nice, period = []int{1, 2, 7}, 7
	default:
		return raw
	}
	for _, s := range nice {
		if s >= raw {
			return s
		}
	}
	return (raw + period - 1) / period * period
}

// labelled reports whether point i gets an x-axis label. Labels sit on
// whole multiples of the step since the Unix epoch (midnight UTC), so
// hourly labels fall on 00:00, 06:00, 12:00 rather than wherever the
// window starts.
func labelled(i int, start time.Time, step int, interval time.Duration) bool {
	if step == 1 {
		return true
	}
	secs := int64(interval / time.Second)
	if secs <= 0 || int64(interval)%int64(time.Second) != 0 {
		return i%step == 0
	}
	idx := floorDiv(start.Unix(), secs)
	return (idx%int64(step)+int64(step))%int64(step) == 0
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// xLabel is a point's x-axis label in UTC: "15:00" for hours, with the
// date ("Nov 24") at midnight so a multi-day window shows where days turn;
// "Nov 23" for days.
func xLabel(t time.Time, interval time.Duration) string {
	t = t.UTC()
	if interval >= domain.IntervalDay || (t.Hour() == 0 && t.Minute() == 0) {
		return t.Format("Jan 2")
	}
	return t.Format("15:04")
}

func writeText(b *strings.Builder, x, y float64, class, anchor, text string) {
	fmt.Fprintf(b, `<text class="%s" x="%s" y="%s" text-anchor="%s">%s</text>`,
		html.EscapeString(class), num(x), num(y), html.EscapeString(anchor), html.EscapeString(text))
}

// num formats a coordinate with at most one decimal.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}
