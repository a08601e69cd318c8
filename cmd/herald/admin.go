package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
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

func newAdminCmd(e *env) *cobra.Command {
	return noun("admin", "Create the dashboard's sign-ins", newAdminCreateCmd(e))
}

// newAdminCreateCmd creates a dashboard operator. The password comes only
// from stdin, never from a flag or the environment (both leak into process
// listings and shell history), and is never printed.
func newAdminCreateCmd(e *env) *cobra.Command {
	var (
		email, workspace string
		out              output
	)
	cmd := &cobra.Command{
		Use:   "create --email E < password",
		Short: "Create a dashboard sign-in; the password is read from stdin",
		Long: "Creates a dashboard sign-in. The password (12 to 256 characters) is read from stdin: asked\n" +
			"twice, without echo, on a terminal; otherwise the first line.",
		Example: "  printf '%s\\n' 'a long passphrase' | herald admin create --email ops@example.com",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 { // not echoed: it may be the password
				return usagef("admin create takes no arguments; the password is read from stdin")
			}
			return nil
		},
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		if err := out.check(); err != nil {
			return err
		}
		if email == "" {
			return usagef("--email is required")
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
		return e.withApp(func() error {
			o, err := h.Handle(e.ctx, app.CreateOperator{Workspace: workspace, Email: email, Password: password})
			if err != nil {
				return err
			}
			switch {
			case out.json:
				return printJSON(e.stdout, operatorJSON{ID: string(o.ID), Email: o.Email,
					WorkspaceID: string(o.Workspace), CreatedAt: o.CreatedAt.Format(time.RFC3339Nano)})
			case out.quiet:
				fmt.Fprintln(e.stdout, o.ID)
				return nil
			}
			fmt.Fprintf(e.stdout, "Created operator %s (%s) in workspace %s; sign in at http://%s/dashboard/login\n",
				o.Email, o.ID, o.Workspace, dashboardHost(e.cfg.Addr))
			return nil
		}, &h)
	})
	cmd.Flags().StringVar(&email, "email", "", "the operator's email address, used to sign in (required)")
	workspaceFlag(cmd, &workspace)
	out.register(cmd, "the operator's id")
	e.appFlags(cmd)
	return cmd
}

// readPassword reads a new password from stdin: on a terminal it prompts on
// stderr without echo and asks for it twice; otherwise it takes the first
// line, without its line ending.
func readPassword(e *env) (string, error) {
	if e.stdin == nil {
		return "", usagef("admin create reads the password from stdin")
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
		return "", usagef("admin create reads the password from stdin: pipe one line, or run it in a terminal")
	}
	if s, ok := strings.CutSuffix(line, "\r\n"); ok {
		return s, nil
	}
	return strings.TrimSuffix(line, "\n"), nil
}

// promptPassword asks for the password twice on the terminal fd, without
// echo, and refuses a mismatch.
func promptPassword(e *env, fd int) (string, error) {
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
