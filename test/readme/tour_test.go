package readme

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/test/testenv"
)

var binary string

func TestMain(m *testing.M) { testenv.RunWithHerald(m, &binary) }

// tourTimeout bounds the whole tour; the sandbox's steps are shortened, so
// it takes a few seconds.
const tourTimeout = 2 * time.Minute

// block is one ```sh block of the tour: its commands, and the lines the
// README shows as their output (full-line # comments).
type block struct {
	line   int // in README.md, of the opening fence
	script string
	want   []string
}

// TestREADMETour runs the README's tour as a reader pastes it: the blocks
// in order, in one bash, in a directory holding ./bin/herald, while herald
// serve runs (where the reader ran make run). The server listens on a free
// port instead of 8080: the blocks' localhost:8080 is rewritten to it, and
// nothing else is.
func TestREADMETour(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("the README tour needs %s: %v", tool, err)
			}
			t.Skipf("the README tour needs %s: %v", tool, err)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := tourBlocks(t, string(readme))

	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(binary, filepath.Join(dir, "bin", "herald")); err != nil {
		t.Fatal(err)
	}
	env := append(withoutHerald(os.Environ()), "HERALD_DATABASE_URL=sqlite:"+filepath.Join(dir, "herald.db"))
	srv := testenv.Serve(t, binary, append(env, "HERALD_SANDBOX_STEP_DELAY=50ms"))
	addr := strings.TrimPrefix(srv.Base, "http://")

	// One bash runs every block, so the variables one block sets are there
	// for the next; a marker line before each tells their outputs apart.
	var script strings.Builder
	script.WriteString("set -eo pipefail\n")
	for i, b := range blocks {
		fmt.Fprintf(&script, "printf '%%s\\n' '%s%d'\n%s\n", marker, i, strings.ReplaceAll(b.script, "localhost:8080", addr))
	}
	ctx, cancel := context.WithTimeout(context.Background(), tourTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir, cmd.Env, cmd.WaitDelay = dir, env, 5*time.Second
	out, runErr := cmd.CombinedOutput()

	outputs := splitOutputs(string(out), len(blocks))
	ran := len(outputs)
	for i, b := range blocks[:ran] {
		if i == ran-1 && runErr != nil {
			t.Fatalf("the tour's block at README.md:%d failed (%v); it printed:\n%s\nserver log:\n%s", b.line, runErr, outputs[i], srv.Logs())
		}
		t.Logf("README.md:%d\n%s\n--- printed:\n%s", b.line, b.script, outputs[i])
		if missing := unmatched(b.want, outputs[i]); missing != "" {
			t.Errorf("the tour's block at README.md:%d does not print\n\t%s\nIt printed:\n%s", b.line, missing, outputs[i])
		}
	}
	if runErr != nil || ran != len(blocks) {
		t.Fatalf("the tour ran %d of %d blocks: %v\n%s", ran, len(blocks), runErr, out)
	}
	t.Logf("%d blocks of the README tour ran against %s", len(blocks), srv.Base)
}

const marker = "::herald-readme-block "

// tourBlocks returns the ```sh blocks of the README's "Five-minute tour"
// section. They must be pasteable as they are: no … outside comments.
func tourBlocks(t *testing.T, readme string) []block {
	t.Helper()
	lines := strings.Split(readme, "\n")
	var (
		blocks          []block
		inTour, inBlock bool
		cur             block
		script          []string
	)
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "## "):
			inTour = l == "## Five-minute tour"
		case !inTour:
		case !inBlock && l == "```sh":
			inBlock, cur, script = true, block{line: i + 1}, nil
		case inBlock && l == "```":
			inBlock = false
			cur.script = strings.Join(script, "\n")
			blocks = append(blocks, cur)
		case inBlock && strings.HasPrefix(l, "# "):
			cur.want = append(cur.want, strings.TrimPrefix(l, "# "))
		case inBlock:
			if strings.Contains(l, "…") {
				t.Errorf("README.md:%d cannot be pasted as it is: %q", i+1, l)
			}
			script = append(script, l)
		}
	}
	if len(blocks) < 5 {
		t.Fatalf("found %d shell blocks in the README's Five-minute tour; the test looks for ```sh blocks under '## Five-minute tour'", len(blocks))
	}
	return blocks
}

// splitOutputs cuts the shell's output at the markers: one string per
// block that started.
func splitOutputs(out string, n int) []string {
	var outputs []string
	for _, l := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(l, marker) {
			outputs = append(outputs, "")
			continue
		}
		if len(outputs) > 0 {
			outputs[len(outputs)-1] += l
		}
	}
	return outputs[:min(len(outputs), n)]
}

// unmatched returns the first wanted line that no output line matches, the
// lines taken in order. A wanted line matches in substance: "…" stands for
// any text, and runs of spaces count as one (a table's columns are as wide
// as their values).
func unmatched(want []string, output string) string {
	got := strings.Split(output, "\n")
	for _, w := range want {
		re := pattern(w)
		for len(got) > 0 && !re.MatchString(squeeze(got[0])) {
			got = got[1:]
		}
		if len(got) == 0 {
			return w
		}
		got = got[1:]
	}
	return ""
}

func pattern(want string) *regexp.Regexp {
	parts := strings.Split(squeeze(want), "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}

var spaces = regexp.MustCompile(`\s+`)

func squeeze(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }

// withoutHerald drops the HERALD_* variables of the test's environment: the
// tour runs with the defaults, as on a reader's machine.
func withoutHerald(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "HERALD_") {
			out = append(out, kv)
		}
	}
	return out
}
