package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

// numberJSON is a business number as the CLI prints it: its token and app
// secret never, the token's last four characters at most.
type numberJSON struct {
	ID              string   `json:"id"`
	MetaID          string   `json:"metaPhoneNumberId"`
	DisplayNumber   string   `json:"displayNumber"`
	VerifiedName    string   `json:"verifiedName"`
	WABAID          string   `json:"wabaId"`
	AppID           string   `json:"appId"`
	TokenHint       string   `json:"tokenLast4"`
	TokenSource     string   `json:"token"`
	MPS             int      `json:"mps"`
	AllWorkspaces   bool     `json:"allWorkspaces"`
	Workspaces      []string `json:"workspaces"`
	Status          string   `json:"status"`
	Quality         string   `json:"quality"`
	Tier            string   `json:"tier"`
	HealthCheckedAt *string  `json:"healthCheckedAt"`
	CreatedAt       string   `json:"createdAt"`
	UpdatedAt       string   `json:"updatedAt"`
}

func toNumberJSON(n domain.BusinessNumber) numberJSON {
	out := numberJSON{ID: string(n.ID), MetaID: n.MetaID, DisplayNumber: n.DisplayNumber, VerifiedName: n.VerifiedName,
		WABAID: n.WABAID, AppID: n.AppID, TokenHint: n.TokenHint, TokenSource: tokenSource(n), MPS: n.MPS,
		AllWorkspaces: n.AllWorkspaces, Workspaces: []string{}, Status: n.Status.String(), Quality: string(n.Quality),
		Tier: string(n.Tier), CreatedAt: n.CreatedAt.Format(time.RFC3339Nano), UpdatedAt: n.UpdatedAt.Format(time.RFC3339Nano)}
	for _, w := range n.Workspaces {
		out.Workspaces = append(out.Workspaces, string(w))
	}
	if !n.HealthCheckedAt.IsZero() {
		s := n.HealthCheckedAt.Format(time.RFC3339Nano)
		out.HealthCheckedAt = &s
	}
	return out
}

// tokenSource says where a number's token is: stored (sealed, under which
// key), or the environment's (the HERALD_WHATSAPP_* number).
func tokenSource(n domain.BusinessNumber) string {
	if n.AccessToken.IsZero() {
		return "environment"
	}
	return "sealed:" + n.AccessToken.KeyID
}

func newNumbersCmd(e *env) *cobra.Command {
	return noun("numbers", "Add, list, change and remove the WhatsApp business numbers Herald sends from",
		newNumbersAddCmd(e), newNumbersListCmd(e), newNumbersUpdateCmd(e), newNumbersRemoveCmd(e))
}

// numberFlags are the flags add and update share.
type numberFlags struct {
	metaID, display, name, waba, app string
	mps                              int
	workspaces                       []string
	all                              bool
	tokenFile, secretFile            string
}

func (nf *numberFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&nf.metaID, "phone-number-id", "", "Meta's phone number id (digits)")
	f.StringVar(&nf.display, "display-number", "", "the number as people see it, e.g. \"+1 631-555-5555\"")
	f.StringVar(&nf.name, "verified-name", "", "the business name WhatsApp shows")
	f.StringVar(&nf.waba, "waba-id", "", "the WhatsApp Business Account id: its templates are the number's")
	f.StringVar(&nf.app, "app-id", "", "the Meta app the account is subscribed to (its app secret signs the webhooks)")
	f.IntVar(&nf.mps, "mps", 0, "messages per second from this number, up to 1000; 0 is HERALD_WHATSAPP_MPS")
	f.StringSliceVar(&nf.workspaces, "workspace", nil, "a workspace that may use the number (repeat for several)")
	f.BoolVar(&nf.all, "all-workspaces", false, "every workspace may use the number")
	f.StringVar(&nf.tokenFile, "access-token-file", "", "file holding the access token; - reads it from stdin")
	f.StringVar(&nf.secretFile, "app-secret-file", "", "file holding the Meta app's secret; - reads it from stdin")
}

// readSecretFile reads one secret from a file, or from stdin for "-"; the
// secret never comes from a flag's value, which other users see in the
// process list.
func (e *env) readSecretFile(path, what string) (string, error) {
	if path == "" {
		return "", nil
	}
	var r io.Reader
	if path == "-" {
		r = e.stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return "", fmt.Errorf("%s: %w", what, err)
		}
		defer f.Close()
		r = f
	}
	line, err := bufio.NewReader(io.LimitReader(r, 64<<10)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	if line = strings.TrimSpace(line); line == "" {
		return "", usagef("%s is empty", what)
	}
	return line, nil
}

// readSecrets reads the access token and app secret the flags name (each
// empty when its flag is not given); at most one of them from stdin.
func (nf *numberFlags) readSecrets(e *env) (token, secret string, err error) {
	if nf.tokenFile == "-" && nf.secretFile == "-" {
		return "", "", usagef("--access-token-file and --app-secret-file cannot both read stdin")
	}
	if token, err = e.readSecretFile(nf.tokenFile, "--access-token-file"); err != nil {
		return "", "", err
	}
	if secret, err = e.readSecretFile(nf.secretFile, "--app-secret-file"); err != nil {
		return "", "", err
	}
	return token, secret, nil
}

func (nf *numberFlags) spec() domain.NumberSpec {
	ws := make([]domain.WorkspaceID, len(nf.workspaces))
	for i, w := range nf.workspaces {
		ws[i] = domain.WorkspaceID(w)
	}
	return domain.NumberSpec{MetaID: nf.metaID, DisplayNumber: nf.display, VerifiedName: nf.name, WABAID: nf.waba,
		AppID: nf.app, MPS: nf.mps, AllWorkspaces: nf.all, Workspaces: ws}
}

func newNumbersAddCmd(e *env) *cobra.Command {
	var (
		nf  numberFlags
		out output
	)
	cmd := &cobra.Command{
		Use:   "add --phone-number-id ID --waba-id ID --access-token-file FILE (--workspace ID… | --all-workspaces)",
		Short: "Add a business number; its access token (and app secret) are stored sealed",
		Long: "Adds a WhatsApp business number. The access token and the app secret are read from files (or stdin, -),\n" +
			"never from the command line, and stored sealed (AES-256-GCM) under HERALD_SECRET_KEY; without a key, an\n" +
			"embedded SQLite database gets a key file beside it, made now, and PostgreSQL refuses.",
		Example: "  herald numbers add --phone-number-id 106540352242922 --waba-id 102290129340398 --app-id 4242 \\\n" +
			"    --display-number \"+1 631-555-0100\" --verified-name \"Acme US\" --all-workspaces --access-token-file token.txt",
		Args: noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		if err := out.check(); err != nil {
			return err
		}
		if nf.metaID == "" || nf.tokenFile == "" {
			return usagef("--phone-number-id and --access-token-file are required")
		}
		token, secret, err := nf.readSecrets(e)
		if err != nil {
			return err
		}
		keyFile := e.autoKeyFileMissing()
		var h *app.NumbersHandler
		return e.withApp(func() error {
			n, err := h.Add(e.ctx, app.AddNumber{Spec: nf.spec(), AccessToken: token, AppSecret: secret})
			if err != nil {
				return err
			}
			e.saySecretKeyFileMade(keyFile)
			if out.json {
				return printJSON(e.stdout, toNumberJSON(n))
			}
			if out.quiet {
				fmt.Fprintln(e.stdout, n.ID)
				return nil
			}
			fmt.Fprintf(e.stdout, "Phone number %s (Meta %s) added; its access token (…%s) is stored sealed under key %s.\n"+
				"Running servers send from it within 30 seconds.\n", n.ID, n.MetaID, n.TokenHint, n.AccessToken.KeyID)
			return nil
		}, &h)
	})
	nf.register(cmd)
	out.register(cmd, "the number's id")
	e.appFlags(cmd)
	return cmd
}

// autoKeyFileMissing returns the automatic secret key file's path when no
// key is configured and the file does not exist yet: a command that seals
// a secret then makes it.
func (e *env) autoKeyFileMissing() string {
	cfg, err := e.config()
	if err != nil {
		return ""
	}
	k := cfg.secretKeys()
	if k.Key != "" || k.KeyFile != "" || k.AutoKeyFile == "" {
		return ""
	}
	if _, err := os.Stat(k.AutoKeyFile); err == nil {
		return ""
	}
	return k.AutoKeyFile
}

// saySecretKeyFileMade tells, on stderr, that the command made the
// automatic key file.
func (e *env) saySecretKeyFileMade(path string) {
	if path == "" {
		return
	}
	if _, err := os.Stat(path); err == nil {
		fmt.Fprintf(e.stderr, "note: no HERALD_SECRET_KEY is set: made the secret key %s (0600) to seal stored secrets; "+
			"back it up with the database, or set HERALD_SECRET_KEY_FILE to it.\n", path)
	}
}

func newNumbersListCmd(e *env) *cobra.Command {
	var out output
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the business numbers, oldest first (never their tokens)",
		Args:  noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		var h *app.NumbersHandler
		return e.withApp(func() error {
			ns, err := h.List(e.ctx)
			if err != nil {
				return err
			}
			if out.json {
				list := make([]numberJSON, len(ns))
				for i, n := range ns {
					list[i] = toNumberJSON(n)
				}
				return printJSON(e.stdout, list)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tMETA ID\tNUMBER\tNAME\tWABA\tTOKEN\tWORKSPACES\tSTATUS\tQUALITY\tTIER")
			for _, n := range ns {
				ws := "all"
				if !n.AllWorkspaces {
					ws = fmt.Sprint(n.Workspaces)
				}
				token := tokenSource(n)
				if n.TokenHint != "" {
					token += " …" + n.TokenHint
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", n.ID, n.MetaID, n.DisplayNumber, n.VerifiedName,
					n.WABAID, token, ws, n.Status, dash(string(n.Quality)), dash(string(n.Tier)))
			}
			return tw.Flush()
		}, &h)
	})
	out.register(cmd, "")
	e.appFlags(cmd)
	return cmd
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newNumbersUpdateCmd(e *env) *cobra.Command {
	var (
		nf     numberFlags
		status string
		out    output
	)
	cmd := &cobra.Command{
		Use:   "update ID [flags]",
		Short: "Change a business number: the flags given replace what is stored",
		Long: "Changes a business number. Only the flags given change; --workspace replaces the list of workspaces,\n" +
			"--all-workspaces=false with --workspace limits it again. A new token or app secret is read from its file.",
		Args: oneArg("one phone number id (pn_…)"),
	}
	cmd.RunE = e.action(func(c *cobra.Command, args []string) error {
		if err := out.check(); err != nil {
			return err
		}
		id, err := domain.ParseBusinessNumberID(args[0])
		if err != nil {
			return err
		}
		var st domain.NumberStatus
		if status != "" {
			if st, err = domain.ParseNumberStatus(status); err != nil {
				return usagef("--status must be active or disabled")
			}
		}
		token, secret, err := nf.readSecrets(e)
		if err != nil {
			return err
		}
		keyFile := e.autoKeyFileMissing()
		var h *app.NumbersHandler
		return e.withApp(func() error {
			n, err := h.Get(e.ctx, id)
			if err != nil {
				return err
			}
			spec := n.Spec()
			f := c.Flags()
			set := func(name string, dst *string, v string) {
				if f.Changed(name) {
					*dst = v
				}
			}
			set("phone-number-id", &spec.MetaID, nf.metaID)
			set("display-number", &spec.DisplayNumber, nf.display)
			set("verified-name", &spec.VerifiedName, nf.name)
			set("waba-id", &spec.WABAID, nf.waba)
			set("app-id", &spec.AppID, nf.app)
			if f.Changed("mps") {
				spec.MPS = nf.mps
			}
			if f.Changed("workspace") {
				spec.Workspaces, spec.AllWorkspaces = nf.spec().Workspaces, false
			}
			if f.Changed("all-workspaces") {
				spec.AllWorkspaces = nf.all
			}
			n, err = h.Update(e.ctx, app.UpdateNumber{ID: id, Spec: spec, AccessToken: token, AppSecret: secret, Status: st})
			if err != nil {
				return err
			}
			e.saySecretKeyFileMade(keyFile)
			if out.json {
				return printJSON(e.stdout, toNumberJSON(n))
			}
			fmt.Fprintf(e.stdout, "Phone number %s updated; running servers use the change within 30 seconds.\n", n.ID)
			return nil
		}, &h)
	})
	nf.register(cmd)
	cmd.Flags().StringVar(&status, "status", "", "active or disabled (a disabled number sends nothing)")
	out.register(cmd, "")
	e.appFlags(cmd)
	return cmd
}

func newNumbersRemoveCmd(e *env) *cobra.Command {
	var out output
	cmd := &cobra.Command{
		Use:   "remove ID",
		Short: "Remove a business number; its campaigns' live messages wait until moved to another",
		Args:  oneArg("one phone number id (pn_…)"),
	}
	cmd.RunE = e.action(func(_ *cobra.Command, args []string) error {
		id, err := domain.ParseBusinessNumberID(args[0])
		if err != nil {
			return err
		}
		var h *app.NumbersHandler
		return e.withApp(func() error {
			if err := h.Remove(e.ctx, id); err != nil {
				return err
			}
			if out.json {
				return printJSON(e.stdout, map[string]any{"id": string(id), "removed": true})
			}
			fmt.Fprintf(e.stdout, "Phone number %s removed.\n", id)
			return nil
		}, &h)
	})
	out.register(cmd, "")
	e.appFlags(cmd)
	return cmd
}

func newSecretsCmd(e *env) *cobra.Command {
	return noun("secrets", "Make secret keys and seal stored secrets under a new one",
		newSecretsRotateCmd(e), newSecretsNewKeyCmd(e))
}

func newSecretsRotateCmd(e *env) *cobra.Command {
	var out output
	cmd := &cobra.Command{
		Use:   "rotate",
		Short: "Seal every stored token and app secret again under HERALD_SECRET_KEY",
		Long: "Seals every stored access token and app secret that is not under the current key (HERALD_SECRET_KEY or\n" +
			"HERALD_SECRET_KEY_FILE) again under it. Give the old key as HERALD_SECRET_KEY_PREVIOUS. Servers need the\n" +
			"old key as HERALD_SECRET_KEY_PREVIOUS until this has run, and not after.",
		Example: "  HERALD_SECRET_KEY=$(herald secrets new-key) HERALD_SECRET_KEY_PREVIOUS=$OLD_KEY herald secrets rotate",
		Args:    noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		var h *app.NumbersHandler
		return e.withApp(func() error {
			n, err := h.RotateSecrets(e.ctx)
			if err != nil {
				return err
			}
			if out.json {
				return printJSON(e.stdout, map[string]int{"resealed": n})
			}
			fmt.Fprintf(e.stdout, "%d secret(s) sealed again under the current key.\n", n)
			return nil
		}, &h)
	})
	out.register(cmd, "")
	e.appFlags(cmd)
	return cmd
}

func newSecretsNewKeyCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "new-key",
		Short: "Print a fresh secret key for HERALD_SECRET_KEY",
		Args:  noArgs,
		RunE: e.action(func(*cobra.Command, []string) error {
			k, err := newSecretKey()
			if err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, k)
			return nil
		}),
	}
}

// newSecretKey is system.NewSecretKey.
var newSecretKey = system.NewSecretKey
