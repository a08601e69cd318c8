package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.uber.org/fx"
	"golang.org/x/term"

	"github.com/heraldhq/herald/domain"
)

// Exit codes, as herald --help and the README state them.
const (
	exitOK      = 0
	exitFailure = 1 // the command ran and failed; the reason is on stderr
	exitUsage   = 2 // the command line is wrong: unknown command or flag, missing or bad value
)

// env bundles what a command may touch, so commands are testable in-process.
type env struct {
	ctx    context.Context
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer

	// cfg is every setting: its default, its HERALD_* variable, then the
	// command's flags. cfgErr names the variables whose values are bad; a
	// command reports it when it reads the settings.
	cfg    *Config
	cfgErr error
	// verbose is --verbose: the command's log goes to stderr.
	verbose bool
	// running is set once a command's own code starts: an error before
	// that came from reading the command line, so it is a usage error.
	running bool
}

// run executes one command and returns the process exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{ctx: ctx, getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	e.cfg, e.cfgErr = loadConfig(getenv, logFormatDefault(stderr))
	root := newRootCmd(e)
	if args == nil {
		args = []string{} // cobra reads os.Args when given nil
	}
	root.SetArgs(args)
	root.SetIn(orEmpty(stdin))
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := unknownSubcommand(root, args)
	if err == nil {
		cmd, err = root.ExecuteContextC(ctx)
	}
	if err == nil {
		return exitOK
	}
	if cmd == nil {
		cmd = root
	}
	var ue *usageError
	if errors.As(err, &ue) || !e.running {
		msg := strings.TrimRight(err.Error(), "\n")
		if strings.Contains(msg, "\n") {
			msg += "\n"
		}
		fmt.Fprintf(stderr, "herald: %s\nRun '%s --help' for usage.\n", msg, cmd.CommandPath())
		return exitUsage
	}
	fmt.Fprintf(stderr, "herald: %s\n", describe(err))
	return exitFailure
}

// orEmpty is r, or an empty reader when there is none (cobra would read
// os.Stdin).
func orEmpty(r io.Reader) io.Reader {
	if r == nil {
		return strings.NewReader("")
	}
	return r
}

// logFormatDefault is console when stderr is a terminal, json otherwise.
func logFormatDefault(stderr io.Writer) string {
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return "console"
	}
	return "json"
}

// usageTemplate is cobra's, without aliases and help topics (Herald has
// none), and with two endings: where a command's other settings come from,
// and, under herald --help, the exit codes.
const usageTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}{{$cmds := .Commands}}{{if eq (len .Groups) 0}}

Available Commands:{{range $cmds}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{else}}{{range $group := .Groups}}

{{.Title}}{{range $cmds}}{{if (and (eq .GroupID $group.ID) (or .IsAvailableCommand (eq .Name "help")))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if not .AllChildCommandsHaveGroup}}

Additional Commands:{{range $cmds}}{{if (and (eq .GroupID "") (or .IsAvailableCommand (eq .Name "help")))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if index .Annotations "settings"}}

The other settings are read from their HERALD_* variables, as the server
reads them (herald serve --help lists every one).{{end}}{{if not .HasParent}}

Exit codes:
  0  done
  1  the command failed; the reason is on stderr
  2  the command line is wrong: unknown command or flag, missing or bad value

Settings come from HERALD_* variables; herald serve --help lists them.{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more about a command.{{end}}
`

// newRootCmd builds the command tree. Each command reads its flags into
// variables of its own and its settings into e.cfg.
func newRootCmd(e *env) *cobra.Command {
	info := readBuildInfo()
	root := &cobra.Command{
		Use:           "herald",
		Short:         "Herald sends WhatsApp template messages through a small HTTP API.",
		Version:       info.Version,
		SilenceErrors: true, // run prints errors, once, in its own words
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("{{.Name}} " + info.String() + "\n")
	root.SetUsageTemplate(usageTemplate)
	root.SetFlagErrorFunc(flagError)
	root.Flags().Bool("version", false, "print the version")
	root.AddGroup(&cobra.Group{ID: "server", Title: "Server:"}, &cobra.Group{ID: "admin", Title: "Administration:"})
	for _, c := range []*cobra.Command{newServeCmd(e), newMigrateCmd(e), newBackupCmd(e), newHealthcheckCmd(e)} {
		c.GroupID = "server"
		root.AddCommand(c)
	}
	for _, c := range []*cobra.Command{newWorkspacesCmd(e), newKeysCmd(e), newSandboxCmd(e), newNumbersCmd(e), newSecretsCmd(e), newCampaignsCmd(e), newTemplatesCmd(e), newWebhooksCmd(e), newEndpointsCmd(e), newEventsCmd(e), newAdminCmd(e)} {
		c.GroupID = "admin"
		root.AddCommand(c)
	}
	root.AddCommand(newVersionCmd(e))
	keepFlagOrder(root)
	return root
}

// keepFlagOrder lists each command's flags in --help in the order they are
// defined: its own first, then the settings, --help last.
func keepFlagOrder(c *cobra.Command) {
	c.Flags().SortFlags = false
	for _, sub := range c.Commands() {
		keepFlagOrder(sub)
	}
}

// noun is a command that only holds others (herald keys): alone it prints
// its help.
func noun(use, short string, verbs ...*cobra.Command) *cobra.Command {
	c := &cobra.Command{Use: use, Short: short, SuggestionsMinimumDistance: 2}
	c.AddCommand(verbs...)
	return c
}

// unknownSubcommand catches a word after a noun that names none of its
// commands (herald keys lsit): cobra would print the noun's help and
// succeed. It returns the noun and a usage error with the nearest names.
func unknownSubcommand(root *cobra.Command, args []string) (*cobra.Command, error) {
	cmd, rest, err := root.Find(args)
	if err != nil || cmd == root || cmd.Runnable() {
		return nil, nil
	}
	for _, a := range rest {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			return cmd, usagef("unknown command %q for %q%s", a, cmd.CommandPath(), didYouMean(cmd.SuggestionsFor(a), ""))
		}
	}
	return nil, nil
}

// didYouMean lists suggestions as cobra does for commands.
func didYouMean(names []string, prefix string) string {
	if len(names) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nDid you mean this?\n")
	for _, n := range names {
		fmt.Fprintf(&b, "\t%s%s\n", prefix, n)
	}
	return b.String()
}

// flagError turns a flag that cannot be read into a usage error, with the
// nearest flag names when the flag does not exist.
func flagError(cmd *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if errors.As(err, &ne) && ne.GetSpecifiedName() != "" {
		var near []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && levenshtein(ne.GetSpecifiedName(), f.Name) <= 2 {
				near = append(near, f.Name)
			}
		})
		return usagef("%v%s", err, didYouMean(near, "--"))
	}
	return &usageError{err}
}

// levenshtein is the edit distance between two flag names.
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// usageError is an error in how the command was called (exit code 2).
type usageError struct{ err error }

func (u *usageError) Error() string { return u.err.Error() }
func (u *usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// action wraps a command's code: from here on an error is the command's
// failure (exit 1), unless it is a usageError.
func (e *env) action(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		e.running = true
		return fn(cmd, args)
	}
}

// noArgs refuses positional arguments. A stray word is usually a value
// that lost its quotes (--body Hi {{1}}), so it is an error, not ignored.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no argument %q (quote values that contain spaces)", commandName(cmd), args[0])
	}
	return nil
}

// unknownCommandArgs refuses positional arguments of a command that runs
// alone and also holds others (herald migrate sideways): the word was
// meant as one of its commands, so the error names the nearest ones.
func unknownCommandArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unknown command %q for %q%s", args[0], cmd.CommandPath(), didYouMean(cmd.SuggestionsFor(args[0]), ""))
	}
	return nil
}

// commandName is the command's path without "herald", for errors that
// follow "herald: ".
func commandName(cmd *cobra.Command) string {
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}

// oneArg takes exactly one positional argument, described by what ("one
// key id").
func oneArg(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usagef("%s takes %s", commandName(cmd), what)
		}
		return nil
	}
}

// settingFlags registers the settings a command is about as its flags:
// --database-url, and the names given (the Cloud API's for
// sync-templates). The command reads every other setting from its
// variable; its help says so.
func (e *env) settingFlags(cmd *cobra.Command, names ...string) {
	e.cfg.addFlags(cmd.Flags(), append([]string{"database-url"}, names...)...)
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations["settings"] = "true"
}

// appFlags is settingFlags and --verbose, for commands that run withApp.
func (e *env) appFlags(cmd *cobra.Command, names ...string) {
	e.settingFlags(cmd, names...)
	cmd.Flags().BoolVar(&e.verbose, "verbose", false, "write the command's log to stderr (at HERALD_LOG_LEVEL, in HERALD_LOG_FORMAT)")
}

// config returns the settings, or a usage error naming the HERALD_*
// variables whose values are bad.
func (e *env) config() (*Config, error) {
	if e.cfgErr != nil {
		return nil, &usageError{e.cfgErr}
	}
	return e.cfg, nil
}

// withApp starts the CLI's object graph (store, use cases; no server, no
// workers), fills targets, runs fn and stops the graph. The graph logs to
// stderr only with --verbose: a command's output is its result and its
// errors.
func (e *env) withApp(fn func() error, targets ...any) error {
	cfg, err := e.config()
	if err != nil {
		return err
	}
	logOut, level := io.Discard, "error"
	if e.verbose {
		logOut, level = e.stderr, cfg.LogLevel
	}
	opts, err := cliOptions(cfg, logOut, level)
	if err != nil {
		return err
	}
	a := fx.New(opts, fx.Populate(targets...))
	if err := a.Err(); err != nil {
		return err
	}
	if err := a.Start(e.ctx); err != nil {
		return err
	}
	runErr := fn()
	if err := a.Stop(context.WithoutCancel(e.ctx)); err != nil && runErr == nil {
		runErr = err
	}
	return runErr
}

// output is a command's choice of output: human text, --json, or (for
// commands that create something) -q, only the new object's token or id.
type output struct{ json, quiet bool }

// register adds --json, and -q/--quiet when quiet describes what it prints.
func (o *output) register(cmd *cobra.Command, quiet string) {
	cmd.Flags().BoolVar(&o.json, "json", false, "print one JSON value on stdout")
	if quiet != "" {
		cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "print only "+quiet+", for $(…) in scripts")
	}
}

// check refuses --json with -q.
func (o *output) check() error {
	if o.json && o.quiet {
		return usagef("give --json or --quiet, not both")
	}
	return nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// describe is an error in one line for the terminal: a domain error's
// detail (its parameter is the API's field name, which means nothing here),
// otherwise the error's text.
func describe(err error) string {
	var de *domain.Error
	if errors.As(err, &de) {
		if de.Detail == "" {
			return string(de.Code)
		}
		return de.Detail
	}
	return err.Error()
}
