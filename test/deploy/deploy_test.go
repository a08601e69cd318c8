package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/heraldhq/herald/test/testenv"
)

var binary string

func TestMain(m *testing.M) { testenv.RunWithHerald(m, &binary) }

// root is the repository's top directory.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root(t), name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// settings are the HERALD_* variables herald serve reads, from its help.
func settings(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command(binary, "serve", "--help").Output()
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile(`\(HERALD_[A-Z0-9_]+`).FindAllString(string(out), -1)
	for i, n := range names {
		names[i] = strings.TrimPrefix(n, "(")
	}
	if len(names) < 20 {
		t.Fatalf("herald serve --help names only %d settings", len(names))
	}
	return names
}

type composeFile struct {
	Services map[string]struct {
		Image       string
		Command     []string
		Environment map[string]string
		EnvFile     []string `yaml:"env_file"`
		Ports       []string
		ReadOnly    bool `yaml:"read_only"`
		User        string
		DependsOn   map[string]struct{ Condition string } `yaml:"depends_on"`
		Restart     string
	}
}

// TestCompose: compose.yaml runs PostgreSQL, then herald migrate once, then
// two Herald replicas of one image on that database, each waiting for the
// migration to have succeeded (herald serve refuses a PostgreSQL schema
// that is behind), published on the host's loopback only, with settings
// that herald reads.
func TestCompose(t *testing.T) {
	t.Parallel()
	var c composeFile
	if err := yaml.Unmarshal([]byte(read(t, "compose.yaml")), &c); err != nil {
		t.Fatal(err)
	}
	pg, ok := c.Services["postgres"]
	if !ok || pg.Image == "" {
		t.Fatal("no postgres service")
	}
	mig := c.Services["migrate"]
	if !slices.Equal(mig.Command, []string{"migrate"}) || mig.Restart != "no" || mig.DependsOn["postgres"].Condition != "service_healthy" {
		t.Fatalf("migrate service %+v: want herald migrate once, after PostgreSQL is healthy", mig)
	}
	known := settings(t)
	var replicas []string
	for name, s := range c.Services {
		if name == "postgres" {
			continue
		}
		if s.Image != mig.Image {
			t.Errorf("%s runs %q, migrate %q: one image", name, s.Image, mig.Image)
		}
		url := s.Environment["HERALD_DATABASE_URL"]
		if !strings.HasPrefix(url, "postgres://") || !strings.Contains(url, "@postgres:5432/") {
			t.Errorf("%s: HERALD_DATABASE_URL %q is not the postgres service", name, url)
		}
		for k := range s.Environment {
			if !slices.Contains(known, k) {
				t.Errorf("%s sets %s, which herald does not read", name, k)
			}
		}
		if !s.ReadOnly {
			t.Errorf("%s: the root file system should be read-only", name)
		}
		if name == "migrate" {
			continue
		}
		replicas = append(replicas, name)
		if len(s.Command) != 0 {
			t.Errorf("%s: command %q, want the image's (serve)", name, s.Command)
		}
		if s.DependsOn["migrate"].Condition != "service_completed_successfully" {
			t.Errorf("%s does not wait for the migration to succeed: %+v", name, s.DependsOn)
		}
		if len(s.Ports) != 1 || !strings.HasPrefix(s.Ports[0], "127.0.0.1:") || !strings.HasSuffix(s.Ports[0], ":8080") {
			t.Errorf("%s publishes %q, want one port on the host's loopback to 8080", name, s.Ports)
		}
	}
	if len(replicas) != 2 {
		t.Fatalf("replicas %q, want two", replicas)
	}
}

// TestEnvExample: every variable deploy/herald.env.example sets or shows
// commented out is a setting herald serve reads.
func TestEnvExample(t *testing.T) {
	t.Parallel()
	known := settings(t)
	n := 0
	for _, line := range strings.Split(read(t, "deploy/herald.env.example"), "\n") {
		line = strings.TrimPrefix(line, "#")
		name, _, ok := strings.Cut(line, "=")
		if !ok || !regexp.MustCompile(`^HERALD_[A-Z0-9_]+$`).MatchString(name) {
			continue
		}
		n++
		if !slices.Contains(known, name) {
			t.Errorf("herald.env.example names %s, which herald does not read", name)
		}
	}
	if n < 10 {
		t.Fatalf("only %d settings found in herald.env.example", n)
	}
}

// TestUnitAndImageSettings: the settings the systemd unit and the
// Dockerfile set are ones herald reads, the unit's SQLite database is in its
// state directory, and the image's in its volume.
func TestUnitAndImageSettings(t *testing.T) {
	t.Parallel()
	known := settings(t)
	unit, docker := read(t, "deploy/herald.service"), read(t, "Dockerfile")
	for file, text := range map[string]string{"herald.service": unit, "Dockerfile": docker} {
		for _, name := range regexp.MustCompile(`\bHERALD_[A-Z0-9_]+`).FindAllString(text, -1) {
			if !slices.Contains(known, name) {
				t.Errorf("%s names %s, which herald does not read", file, name)
			}
		}
	}
	if !strings.Contains(unit, "StateDirectory=herald\n") || !strings.Contains(unit, "HERALD_DATABASE_URL=sqlite:/var/lib/herald/") {
		t.Error("the unit's SQLite database is not in its state directory")
	}
	if !strings.Contains(docker, "HERALD_DATABASE_URL=sqlite:/data/") || !strings.Contains(docker, `VOLUME ["/data"]`) {
		t.Error("the image's SQLite database is not in its /data volume")
	}
}
