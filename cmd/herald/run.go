package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"go.uber.org/fx"
	"golang.org/x/term"

	"github.com/heraldhq/herald/domain"
)

const usage = `Herald sends WhatsApp template messages through a small HTTP API.

Usage:
  herald serve                       run the server
  herald migrate                     apply database migrations
  herald workspaces create --name N
  herald keys create --name N [--mode live|test] [--workspace ID]
  herald keys list [--workspace ID]
  herald keys revoke ID [--workspace ID]
  herald campaigns sync-templates    read the business account's templates from Meta
  herald campaigns create --name N --template-name T --language L [--body "Hi {{1}}"
      [--header-format none|text|image|video|document] [--header-text S] [--footer S]]
      [--variable-label L]... [--activate] [--workspace ID]
      (without --body the synced template's header, body and footer are used)
  herald campaigns list [--workspace ID]
  herald campaigns activate ID | pause ID
  herald webhooks replay [--id ID | --since TIME]
      (without flags: every webhook event not applied yet)
  herald admin create --email E [--workspace ID]
      (a dashboard sign-in; the password is read from stdin)
  herald version

Every command takes --json (one JSON value on stdout) and the server's settings;
see herald serve --help.
`

// errUsage marks errors in how the command was called (exit code 2).
var errUsage = errors.New("usage")

// env bundles what a command may touch, so commands are testable in-process.
type env struct {
	ctx    context.Context
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// run executes one command and returns the process exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := env{ctx: ctx, getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	err := dispatch(e, args)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "herald: %v\n", err)
		return 2
	default:
		var de *domain.Error
		if errors.As(err, &de) {
			fmt.Fprintf(stderr, "herald: %s\n", describe(de))
		} else {
			fmt.Fprintf(stderr, "herald: %v\n", err)
		}
		return 1
	}
}

func dispatch(e env, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, usage)
		return fmt.Errorf("%w: no command given", errUsage)
	}
	cmd, rest := args[0], args[1:]
	sub := ""
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		sub = rest[0]
	}
	switch cmd + " " + sub {
	case "serve " + sub:
		return serve(e, rest)
	case "migrate " + sub:
		return migrate(e, rest)
	case "workspaces create":
		return workspacesCreate(e, rest[1:])
	case "keys create":
		return keysCreate(e, rest[1:])
	case "keys list":
		return keysList(e, rest[1:])
	case "keys revoke":
		return keysRevoke(e, rest[1:])
	case "campaigns create":
		return campaignsCreate(e, rest[1:])
	case "campaigns list":
		return campaignsList(e, rest[1:])
	case "campaigns sync-templates":
		return campaignsSyncTemplates(e, rest[1:])
	case "campaigns activate":
		return campaignsSetStatus(e, rest[1:], domain.CampaignActive)
	case "campaigns pause":
		return campaignsSetStatus(e, rest[1:], domain.CampaignPaused)
	case "webhooks replay":
		return webhooksReplay(e, rest[1:])
	case "admin create":
		return adminCreate(e, rest[1:])
	case "version " + sub:
		fmt.Fprintln(e.stdout, version)
		return nil
	case "help " + sub, "-h " + sub, "--help " + sub:
		fmt.Fprint(e.stdout, usage)
		return nil
	}
	fmt.Fprint(e.stderr, usage)
	return fmt.Errorf("%w: unknown command %q", errUsage, strings.TrimSpace(cmd+" "+sub))
}

// command is a parsed command line: the settings, the command's own flags
// and its positional arguments.
type command struct {
	cfg  *Config
	fs   *flag.FlagSet
	json *bool // nil for serve
	args []string

	about string    // what --help prints before the flags
	help  io.Writer // where --help prints
}

// newCommand prepares a flag set with every setting and the command's own
// flags (added by addFlags). The flag package prints nothing: a bad flag is
// returned as an error, and --help prints the command's help on stdout.
func newCommand(e env, name string, addFlags func(fs *flag.FlagSet)) (*command, error) {
	logFormat := "json"
	if f, ok := e.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		logFormat = "console"
	}
	fs, cfg, err := newFlagSet(name, e.getenv, e.stderr, logFormat)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	c := &command{cfg: cfg, fs: fs, about: "Usage: herald " + name + " [flags]", help: e.stdout}
	if addFlags != nil {
		addFlags(fs)
	}
	return c, nil
}

// parseCommand is newCommand with --json, followed by parse. The command
// takes one positional argument, an ID, when arg describes it ("one key
// id"), otherwise none.
func parseCommand(e env, name string, args []string, arg string, addFlags func(fs *flag.FlagSet)) (*command, error) {
	c, err := newCommand(e, name, addFlags)
	if err != nil {
		return nil, err
	}
	c.json = c.fs.Bool("json", false, "print one JSON value on stdout")
	if arg != "" {
		c.about = "Usage: herald " + name + " ID [flags]"
	}
	if err := c.parse(args); err != nil {
		return nil, err
	}
	return c, c.positional(arg)
}

// positional checks the number of positional arguments: one when arg
// describes it, none otherwise. A stray word is an error, not ignored: it is
// usually a value that lost its quotes (--body Hi {{1}}).
func (c *command) positional(arg string) error {
	switch {
	case arg == "" && len(c.args) > 0:
		return fmt.Errorf("%w: herald %s takes no argument %q (quote values that contain spaces)", errUsage, c.fs.Name(), c.args[0])
	case arg != "" && len(c.args) != 1:
		return fmt.Errorf("%w: herald %s takes %s", errUsage, c.fs.Name(), arg)
	}
	return nil
}

// workspaceFlag registers --workspace.
func workspaceFlag(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "workspace", "", "workspace id (default: the default workspace)")
}

// parse parses flags that may come before or after positional arguments.
func (c *command) parse(args []string) error {
	for {
		if err := c.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.printHelp()
				return err
			}
			return fmt.Errorf("%w: %v (see herald %s --help)", errUsage, err, c.fs.Name())
		}
		args = c.fs.Args()
		if len(args) == 0 {
			return nil
		}
		c.args = append(c.args, args[0])
		args = args[1:]
	}
}

// printHelp prints the command's usage and every flag with its variable
// and default.
func (c *command) printHelp() {
	fmt.Fprintf(c.help, "%s\n\n", c.about)
	c.fs.SetOutput(c.help)
	c.fs.PrintDefaults()
	c.fs.SetOutput(io.Discard)
}

// withApp starts the CLI's object graph (store, use cases; no server, no
// workers), fills targets, runs fn and stops the graph.
func (c *command) withApp(e env, fn func() error, targets ...any) error {
	opts, err := cliOptions(c.cfg, e.stderr)
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

func (c *command) printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// describe turns a domain error into one line for the terminal.
func describe(e *domain.Error) string {
	if e.Detail == "" {
		return string(e.Code)
	}
	if e.Param != "" {
		return e.Detail + " (" + e.Param + ")"
	}
	return e.Detail
}
