package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

type operatorJSON struct {
	ID          string `json:"id"`
	Email       string `json:"email"`
	WorkspaceID string `json:"workspaceId"`
	CreatedAt   string `json:"createdAt"`
}

// adminCreate creates a dashboard operator. The password comes only from
// stdin, never from a flag or the environment (both leak into process
// listings and shell history), and is never printed.
func adminCreate(e env, args []string) error {
	var email, workspace string
	c, err := newCommand(e, "admin create", func(fs *flag.FlagSet) {
		fs.StringVar(&email, "email", "", "the operator's email address, used to sign in (required)")
		workspaceFlag(fs, &workspace)
	})
	if err != nil {
		return err
	}
	c.json = c.fs.Bool("json", false, "print one JSON value on stdout")
	c.about = "Usage: herald admin create --email E [flags] < password\n\n" +
		"The password is read from stdin: asked twice on a terminal, otherwise the first line."
	if err := c.parse(args); err != nil {
		return err
	}
	if len(c.args) > 0 { // not echoed: it may be the password
		return fmt.Errorf("%w: herald admin create takes no arguments; the password is read from stdin", errUsage)
	}
	if email == "" {
		return fmt.Errorf("%w: --email is required", errUsage)
	}
	// Checked before the password is asked for, so a typo does not cost
	// typing it twice; the use case checks again.
	if _, err := domain.ParseEmail(email); err != nil {
		return err
	}
	password, err := readPassword(e)
	if err != nil {
		return err
	}
	var h *app.CreateOperatorHandler
	return c.withApp(e, func() error {
		o, err := h.Handle(e.ctx, app.CreateOperator{Workspace: workspace, Email: email, Password: password})
		if err != nil {
			return err
		}
		if *c.json {
			return c.printJSON(e.stdout, operatorJSON{ID: string(o.ID), Email: o.Email,
				WorkspaceID: string(o.Workspace), CreatedAt: o.CreatedAt.Format(time.RFC3339Nano)})
		}
		fmt.Fprintf(e.stdout, "Created operator %s (%s) in workspace %s; sign in at http://%s/dashboard/login\n",
			o.Email, o.ID, o.Workspace, dashboardHost(c.cfg.Addr))
		return nil
	}, &h)
}

// readPassword reads a new password from stdin: on a terminal it prompts on
// stderr without echo and asks for it twice; otherwise it takes the first
// line, without its line ending.
func readPassword(e env) (string, error) {
	if e.stdin == nil {
		return "", fmt.Errorf("%w: herald admin create reads the password from stdin", errUsage)
	}
	if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return promptPassword(e, int(f.Fd()))
	}
	// A line far longer than any valid password is cut here and still
	// refused as too long.
	line, err := bufio.NewReader(io.LimitReader(e.stdin, 64<<10)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading the password from stdin: %w", err)
	}
	if line == "" {
		return "", fmt.Errorf("%w: herald admin create reads the password from stdin: pipe one line, or run it in a terminal", errUsage)
	}
	if s, ok := strings.CutSuffix(line, "\r\n"); ok {
		return s, nil
	}
	return strings.TrimSuffix(line, "\n"), nil
}

// promptPassword asks for the password twice on the terminal fd, without
// echo, and refuses a mismatch.
func promptPassword(e env, fd int) (string, error) {
	state, err := term.GetState(fd)
	if err != nil {
		return "", fmt.Errorf("reading the password: %w", err)
	}
	read := func(prompt string) (string, error) {
		fmt.Fprint(e.stderr, prompt)
		type line struct {
			b   []byte
			err error
		}
		done := make(chan line, 1)
		go func() {
			b, err := term.ReadPassword(fd)
			done <- line{b, err}
		}()
		select {
		case l := <-done:
			fmt.Fprintln(e.stderr) // the Enter key was not echoed
			if l.err != nil {
				return "", fmt.Errorf("reading the password: %w", l.err)
			}
			return string(l.b), nil
		case <-e.ctx.Done():
			// Ctrl-C is caught for a clean exit, so ReadPassword would
			// neither return nor turn echo back on: do it here.
			_ = term.Restore(fd, state)
			fmt.Fprintln(e.stderr)
			return "", errors.New("interrupted; nothing was created")
		}
	}
	pw, err := read("Password: ")
	if err != nil {
		return "", err
	}
	if err := domain.CheckPassword(pw); err != nil {
		return "", err
	}
	again, err := read("Repeat the password: ")
	if err != nil {
		return "", err
	}
	if again != pw {
		return "", errors.New("the two passwords differ; nothing was created")
	}
	return pw, nil
}

// dashboardHost is where a browser on this machine reaches a server
// listening on addr: a wildcard or empty host becomes the loopback address.
func dashboardHost(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
