package deploy

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/heraldhq/herald/adapters/metrics"
)

// exported is every series name Herald's /metrics may show: its own
// families (histograms with their _bucket, _sum and _count series) and
// those of the Go and process collectors, as a scrape of a running server
// shows them.
func exported(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, n := range metrics.Names() {
		names = append(names, n, n+"_bucket", n+"_sum", n+"_count")
	}
	m := metrics.New(nil, nil)
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		n := mf.GetName()
		names = append(names, n, n+"_bucket", n+"_sum", n+"_count")
	}
	return names
}

// metricNames are the names of Herald's, Go's and the process's series an
// expression uses (and herald_code, a label, which usedNames leaves out).
var metricNames = regexp.MustCompile(`\b(?:herald|go|process)_[a-z0-9_]+`)

// usedNames are the series names expr uses.
func usedNames(expr string) []string {
	return slices.DeleteFunc(metricNames.FindAllString(expr, -1), func(n string) bool { return n == "herald_code" })
}

// TestAlertRulesUseHeraldsMetrics: every expression of the alert rules
// parses as YAML rules with a name, an expression and a severity, and uses
// only series Herald exports; promtool, where it is installed (CI installs
// Debian's prometheus package for it), checks the rules and runs their unit
// tests (herald-alerts.test.yml).
func TestAlertRulesUseHeraldsMetrics(t *testing.T) {
	t.Parallel()
	var rules struct {
		Groups []struct {
			Name  string
			Rules []struct {
				Alert, Expr, For string
				Labels           map[string]string
				Annotations      map[string]string
			}
		}
	}
	if err := yaml.Unmarshal([]byte(read(t, "deploy/prometheus/herald-alerts.yml")), &rules); err != nil {
		t.Fatal(err)
	}
	known := exported(t)
	var alerts []string
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			alerts = append(alerts, r.Alert)
			if r.Alert == "" || r.Expr == "" || r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
				t.Errorf("rule %q lacks a name, an expression, a severity or a summary", r.Alert)
			}
			for _, n := range usedNames(r.Expr) {
				if !slices.Contains(known, n) {
					t.Errorf("alert %s uses %s, which Herald does not export", r.Alert, n)
				}
			}
		}
	}
	for _, want := range []string{"HeraldQueueStale", "HeraldMessageFailureRateHigh", "HeraldWebhookLagHigh", "HeraldAuthFailures",
		"HeraldEventDeliveriesFailing", "HeraldWebhookEndpointDisabled"} {
		if !slices.Contains(alerts, want) {
			t.Errorf("no alert %s", want)
		}
	}

	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("promtool is not installed: .ci/run installs Debian's prometheus package for it")
		}
		t.Skip("promtool is not installed (Debian's prometheus package has it): the rules were not checked by it")
	}
	dir := filepath.Join(root(t), "deploy", "prometheus")
	for _, args := range [][]string{{"check", "rules", "herald-alerts.yml"}, {"test", "rules", "herald-alerts.test.yml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestDashboardUsesHeraldsMetrics: the Grafana dashboard is JSON whose
// panels query only series Herald exports, through the dashboard's
// datasource variable, and covers each part of the service.
func TestDashboardUsesHeraldsMetrics(t *testing.T) {
	t.Parallel()
	var dash struct {
		Title  string
		UID    string
		Panels []struct {
			Title      string
			Type       string
			Datasource struct{ UID string }
			Targets    []struct{ Expr string }
		}
	}
	if err := json.Unmarshal([]byte(read(t, "deploy/grafana/herald.json")), &dash); err != nil {
		t.Fatal(err)
	}
	if dash.Title == "" || dash.UID == "" {
		t.Error("the dashboard has no title or uid")
	}
	known := exported(t)
	used := map[string]bool{}
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 || p.Datasource.UID != "${datasource}" {
			t.Errorf("panel %q has no query, or does not use the datasource variable", p.Title)
		}
		for _, q := range p.Targets {
			for _, n := range usedNames(q.Expr) {
				used[n] = true
				if !slices.Contains(known, n) {
					t.Errorf("panel %q uses %s, which Herald does not export", p.Title, n)
				}
			}
		}
	}
	for _, n := range metrics.Names() {
		if !used[n] && !used[n+"_bucket"] && !used[n+"_count"] && n != "herald_queue_stats_errors_total" {
			t.Errorf("no panel shows %s", n)
		}
	}
}
