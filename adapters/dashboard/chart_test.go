package dashboard

import (
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

// svgElement is one element of a rendered chart, flattened.
type svgElement struct {
	Name   string
	Attrs  map[string]string
	Text   string
	Series string // the series-<status> class of the enclosing group, if any
}

// parseChart decodes the whole chart as XML, failing the test if it is not
// well formed, and returns its elements in document order.
func parseChart(t *testing.T, out string) []svgElement {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(out))
	var (
		elems  []svgElement
		open   []int    // indexes into elems of the open elements
		series []string // series class per open element
	)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("chart is not well-formed XML: %v\n%s", err, out)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := svgElement{Name: tok.Name.Local, Attrs: map[string]string{}}
			if len(series) > 0 {
				e.Series = series[len(series)-1]
			}
			for _, a := range tok.Attr {
				e.Attrs[a.Name.Local] = a.Value
			}
			for _, c := range strings.Fields(e.Attrs["class"]) {
				if strings.HasPrefix(c, "series-") {
					e.Series = c
				}
			}
			elems = append(elems, e)
			open = append(open, len(elems)-1)
			series = append(series, e.Series)
		case xml.EndElement:
			open, series = open[:len(open)-1], series[:len(series)-1]
		case xml.CharData:
			if len(open) > 0 {
				elems[open[len(open)-1]].Text += string(tok)
			}
		}
	}
	if len(open) != 0 {
		t.Fatalf("chart leaves %d elements open", len(open))
	}
	if len(elems) == 0 || elems[0].Name != "svg" {
		t.Fatalf("chart does not start with an svg element:\n%s", out)
	}
	return elems
}

func find(elems []svgElement, name, series string) []svgElement {
	var got []svgElement
	for _, e := range elems {
		if e.Name == name && (series == "" || e.Series == series) {
			got = append(got, e)
		}
	}
	return got
}

// polylineYs returns the y coordinates of a status's line, point by point.
func polylineYs(t *testing.T, elems []svgElement, s domain.MessageStatus) []float64 {
	t.Helper()
	lines := find(elems, "polyline", "series-"+s.String())
	if len(lines) != 1 {
		t.Fatalf("want one polyline for %s, got %d", s, len(lines))
	}
	var ys []float64
	for _, pair := range strings.Fields(lines[0].Attrs["points"]) {
		_, y, ok := strings.Cut(pair, ",")
		if !ok {
			t.Fatalf("point %q of %s is not x,y", pair, s)
		}
		v, err := strconv.ParseFloat(y, 64)
		if err != nil {
			t.Fatalf("point %q of %s: %v", pair, s, err)
		}
		ys = append(ys, v)
	}
	return ys
}

// yAxisLabels returns the numbers on the y axis (right-aligned ticks).
func yAxisLabels(t *testing.T, elems []svgElement) []int {
	t.Helper()
	var got []int
	for _, e := range find(elems, "text", "") {
		if e.Attrs["class"] != "tick" || e.Attrs["text-anchor"] != "end" {
			continue
		}
		n, err := strconv.Atoi(e.Text)
		if err != nil {
			t.Fatalf("y-axis label %q is not a number", e.Text)
		}
		got = append(got, n)
	}
	return got
}

// xAxisLabels returns the centred tick labels under the x axis.
func xAxisLabels(elems []svgElement) []svgElement {
	var got []svgElement
	for _, e := range find(elems, "text", "") {
		if e.Attrs["class"] == "tick" && e.Attrs["text-anchor"] == "middle" {
			got = append(got, e)
		}
	}
	return got
}

var chartDay = time.Date(2025, time.November, 23, 0, 0, 0, 0, time.UTC)

// hourly builds a timeline of n hours from chartDay with the given counts
// per status, one slice entry per hour (missing entries are 0).
func hourly(t *testing.T, n int, counts map[domain.MessageStatus][]int) domain.Timeline {
	t.Helper()
	return timeline(t, n, domain.IntervalHour, counts)
}

func timeline(t *testing.T, n int, interval time.Duration, counts map[domain.MessageStatus][]int) domain.Timeline {
	t.Helper()
	var sc []domain.StatusCount
	for s, cs := range counts {
		for i, c := range cs {
			sc = append(sc, domain.StatusCount{Status: s, Start: chartDay.Add(time.Duration(i) * interval), Count: c})
		}
	}
	// The window ends a second before the interval after the last one.
	tl, err := domain.NewTimeline(chartDay, chartDay.Add(time.Duration(n)*interval-time.Second), interval, sc)
	if err != nil {
		t.Fatalf("NewTimeline: %v", err)
	}
	if len(tl.Points) != n {
		t.Fatalf("timeline has %d points, want %d", len(tl.Points), n)
	}
	return tl
}

func TestTimelineChartLineRisesWhereCountIsHigher(t *testing.T) {
	t.Parallel()
	tl := hourly(t, 4, map[domain.MessageStatus][]int{
		domain.StatusSent: {1, 10, 4, 0},
		domain.StatusRead: {0, 2, 2, 7},
	})
	elems := parseChart(t, string(timelineChart(tl)))

	sent := polylineYs(t, elems, domain.StatusSent)
	if len(sent) != 4 {
		t.Fatalf("sent line has %d points, want 4", len(sent))
	}
	// SVG y grows downward: a higher count has a smaller y.
	if !(sent[1] < sent[2] && sent[2] < sent[0] && sent[0] < sent[3]) {
		t.Errorf("sent line y = %v, want the order of counts 10 > 4 > 1 > 0", sent)
	}
	read := polylineYs(t, elems, domain.StatusRead)
	if read[1] != read[2] || !(read[3] < read[1] && read[1] < read[0]) {
		t.Errorf("read line y = %v, want 7 above 2 = 2 above 0", read)
	}
	// Equal counts sit at equal heights across series.
	if sent[3] != read[0] {
		t.Errorf("zero on sent at y=%v, zero on read at y=%v, want equal", sent[3], read[0])
	}
	failed := polylineYs(t, elems, domain.StatusFailed)
	for i, y := range failed {
		if y != sent[3] {
			t.Errorf("failed (all zero) point %d at y=%v, want the baseline %v", i, y, sent[3])
		}
	}
}

func TestTimelineChartDrawsEveryTimelineStatusInOrder(t *testing.T) {
	t.Parallel()
	elems := parseChart(t, string(timelineChart(hourly(t, 3, nil))))

	var want, lines, legend []string
	for _, s := range domain.TimelineStatuses() {
		want = append(want, "series-"+s.String())
	}
	for _, e := range find(elems, "polyline", "") {
		lines = append(lines, e.Series)
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("series lines (-want +got):\n%s", diff)
	}
	for _, e := range find(elems, "text", "") {
		if e.Attrs["text-anchor"] == "start" {
			legend = append(legend, "series-"+e.Text)
		}
	}
	if diff := cmp.Diff(want, legend); diff != "" {
		t.Errorf("legend entries (-want +got):\n%s", diff)
	}
}

func TestTimelineChartDescStatesTotals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		tl   domain.Timeline
		want string
	}{
		{
			name: "hourly",
			tl: hourly(t, 24, map[domain.MessageStatus][]int{
				domain.StatusQueued:    {100, 20},
				domain.StatusSent:      {60, 60},
				domain.StatusDelivered: {50, 40, 20},
				domain.StatusRead:      {0, 30, 50},
				domain.StatusFailed:    {1, 0, 0, 0, 1},
			}),
			want: "Over 24 hours from Nov 23, 2025 00:00 UTC: 120 queued, 120 sent, 110 delivered, 80 read, 2 failed.",
		},
		{
			name: "daily",
			tl: timeline(t, 7, domain.IntervalDay, map[domain.MessageStatus][]int{
				domain.StatusSent: {3, 4},
			}),
			want: "Over 7 days from Nov 23, 2025: 0 queued, 7 sent, 0 delivered, 0 read, 0 failed.",
		},
		{
			name: "one hour",
			tl:   hourly(t, 1, map[domain.MessageStatus][]int{domain.StatusRead: {5}}),
			want: "Over 1 hour from Nov 23, 2025 00:00 UTC: 0 queued, 0 sent, 0 delivered, 5 read, 0 failed.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			elems := parseChart(t, string(timelineChart(tt.tl)))
			descs := find(elems, "desc", "")
			if len(descs) != 1 {
				t.Fatalf("want one desc, got %d", len(descs))
			}
			if diff := cmp.Diff(tt.want, descs[0].Text); diff != "" {
				t.Errorf("desc (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTimelineChartYAxisCoversTheBiggestCount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		biggest int
		wantMax int
	}{
		{0, 1}, {1, 1}, {3, 5}, {7, 10}, {10, 10}, {11, 20}, {123, 200}, {500, 500}, {501, 1000}, {98765, 100000},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.biggest), func(t *testing.T) {
			t.Parallel()
			tl := hourly(t, 3, map[domain.MessageStatus][]int{domain.StatusDelivered: {0, tt.biggest}})
			elems := parseChart(t, string(timelineChart(tl)))
			labels := yAxisLabels(t, elems)
			if len(labels) < 2 || labels[0] != 0 {
				t.Fatalf("y-axis labels %v, want 0 first and a maximum", labels)
			}
			top := labels[len(labels)-1]
			if top < tt.biggest {
				t.Errorf("y-axis maximum %d is below the biggest count %d", top, tt.biggest)
			}
			if top != tt.wantMax {
				t.Errorf("y-axis maximum %d, want the round number %d", top, tt.wantMax)
			}
			// The peak is drawn inside the plot, not above it.
			ys := polylineYs(t, elems, domain.StatusDelivered)
			if ys[1] < plotTop || ys[0] > plotBottom {
				t.Errorf("delivered line y = %v, want within [%d, %d]", ys, plotTop, plotBottom)
			}
		})
	}
}

func TestTimelineChartAllZeroStillRenders(t *testing.T) {
	t.Parallel()
	elems := parseChart(t, string(timelineChart(hourly(t, 24, nil))))
	if got := yAxisLabels(t, elems); !cmp.Equal(got, []int{0, 1}) {
		t.Errorf("y-axis labels %v, want [0 1]", got)
	}
	for _, s := range domain.TimelineStatuses() {
		for i, y := range polylineYs(t, elems, s) {
			if y != plotBottom {
				t.Errorf("%s point %d at y=%v, want the baseline %d", s, i, y, plotBottom)
			}
		}
	}
}

func TestTimelineChartEmptyTimelineSaysNoActivity(t *testing.T) {
	t.Parallel()
	for _, tl := range []domain.Timeline{{}, {Interval: domain.IntervalDay, Points: []domain.TimelinePoint{}}} {
		out := string(timelineChart(tl))
		elems := parseChart(t, out)
		var texts []string
		for _, e := range find(elems, "text", "") {
			texts = append(texts, e.Text)
		}
		if diff := cmp.Diff([]string{"No activity in this window"}, texts); diff != "" {
			t.Errorf("texts (-want +got):\n%s", diff)
		}
		if n := len(find(elems, "polyline", "")); n != 0 {
			t.Errorf("empty timeline draws %d lines", n)
		}
	}
}

func TestTimelineChartXAxisLabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		tl        domain.Timeline
		wantFirst []string
	}{
		{"hourly", hourly(t, 6, nil), []string{"Nov 23", "01:00", "02:00", "03:00"}},
		{"day of hours", hourly(t, 24, nil), []string{"Nov 23", "03:00", "06:00", "09:00"}},
		{"daily", timeline(t, 5, domain.IntervalDay, nil), []string{"Nov 23", "Nov 24", "Nov 25", "Nov 26"}},
		{"most hours", hourly(t, domain.MaxTimelinePoints, nil), nil},
		{"most days", timeline(t, domain.MaxTimelinePoints, domain.IntervalDay, nil), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			labels := xAxisLabels(parseChart(t, string(timelineChart(tt.tl))))
			if len(labels) < 2 {
				t.Fatalf("got %d x-axis labels, want at least 2", len(labels))
			}
			if tt.wantFirst != nil {
				var got []string
				for _, l := range labels[:len(tt.wantFirst)] {
					got = append(got, l.Text)
				}
				if diff := cmp.Diff(tt.wantFirst, got); diff != "" {
					t.Errorf("first labels (-want +got):\n%s", diff)
				}
			}
			// Labels never crowd each other.
			prev := -1.0
			for _, l := range labels {
				x, err := strconv.ParseFloat(l.Attrs["x"], 64)
				if err != nil {
					t.Fatalf("label %q x: %v", l.Text, err)
				}
				if prev >= 0 && x-prev < 40 {
					t.Errorf("label %q at x=%v is %v from the previous one", l.Text, x, x-prev)
				}
				prev = x
			}
		})
	}
}

func TestTimelineChartIsAccessibleAndCSPSafe(t *testing.T) {
	t.Parallel()
	tls := map[string]domain.Timeline{
		"empty":  {},
		"single": hourly(t, 1, map[domain.MessageStatus][]int{domain.StatusSent: {3}}),
		"hourly": hourly(t, 48, map[domain.MessageStatus][]int{domain.StatusSent: {3, 9, 1}}),
		"daily":  timeline(t, 30, domain.IntervalDay, map[domain.MessageStatus][]int{domain.StatusFailed: {2}}),
		"most":   hourly(t, domain.MaxTimelinePoints, nil),
	}
	for name, tl := range tls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out := string(timelineChart(tl))
			if strings.Contains(out, "style=") {
				t.Errorf("chart has a style attribute")
			}
			elems := parseChart(t, out)
			ids := map[string]string{}
			for _, e := range elems {
				for a := range e.Attrs {
					if a == "style" || strings.HasPrefix(a, "on") {
						t.Errorf("<%s> has a %s attribute, which the CSP forbids", e.Name, a)
					}
				}
				if id := e.Attrs["id"]; id != "" {
					if other, dup := ids[id]; dup {
						t.Errorf("id %q on both <%s> and <%s>", id, other, e.Name)
					}
					ids[id] = e.Name
				}
			}
			svg := elems[0]
			if svg.Attrs["role"] != "img" {
				t.Errorf("svg role = %q, want img", svg.Attrs["role"])
			}
			if svg.Attrs["viewBox"] != "0 0 720 240" || svg.Attrs["width"] != "100%" {
				t.Errorf("svg viewBox = %q, width = %q, want a responsive 720×240", svg.Attrs["viewBox"], svg.Attrs["width"])
			}
			var labelledBy []string
			for _, id := range strings.Fields(svg.Attrs["aria-labelledby"]) {
				labelledBy = append(labelledBy, ids[id])
			}
			if diff := cmp.Diff([]string{"title", "desc"}, labelledBy); diff != "" {
				t.Errorf("aria-labelledby points at (-want +got):\n%s", diff)
			}
			if again := string(timelineChart(tl)); again != out {
				t.Errorf("chart differs between two renders of one timeline")
			}
		})
	}
}

func TestTimelineChartIDsDifferBetweenCharts(t *testing.T) {
	t.Parallel()
	a := parseChart(t, string(timelineChart(hourly(t, 3, map[domain.MessageStatus][]int{domain.StatusSent: {1}}))))
	b := parseChart(t, string(timelineChart(hourly(t, 3, map[domain.MessageStatus][]int{domain.StatusSent: {2}}))))
	if a[0].Attrs["aria-labelledby"] == b[0].Attrs["aria-labelledby"] {
		t.Errorf("two different charts share the ids %q", a[0].Attrs["aria-labelledby"])
	}
}
