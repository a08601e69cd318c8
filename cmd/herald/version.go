package main

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// buildInfo is what herald version prints.
type buildInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	BuildTime string `json:"buildTime"`
	GoVersion string `json:"goVersion"`
}

// String is the one line of herald version and herald --version.
func (b buildInfo) String() string {
	return fmt.Sprintf("%s (commit %s, built %s, %s)", b.Version, b.Commit, b.BuildTime, b.GoVersion)
}

// readBuildInfo takes the version, commit and build time set with -ldflags
// (make build sets all three), and for those not set what Go recorded in
// the binary: the module's version (a release tag for go install …@v1.2.3,
// a pseudo-version from the checkout otherwise) and the commit, "-dirty"
// when the tree had changes. The build time is only known when it was set.
func readBuildInfo() buildInfo {
	b := buildInfo{Version: version, Commit: commit, BuildTime: buildTime, GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		b.GoVersion = cmp.Or(bi.GoVersion, b.GoVersion)
		if b.Version == "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version
		}
		var revision string
		dirty := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if b.Commit == "" && revision != "" {
			b.Commit = revision
			if dirty {
				b.Commit += "-dirty"
			}
		}
	}
	b.Version = cmp.Or(b.Version, "dev")
	b.Commit = cmp.Or(b.Commit, "unknown")
	b.BuildTime = cmp.Or(b.BuildTime, "unknown")
	return b
}

func newVersionCmd(e *env) *cobra.Command {
	var out output
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, build time and Go version",
		Args:  noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		info := readBuildInfo()
		if out.json {
			return printJSON(e.stdout, info)
		}
		_, err := fmt.Fprintf(e.stdout, "herald %s\n", info)
		return err
	})
	out.register(cmd, "")
	return cmd
}
