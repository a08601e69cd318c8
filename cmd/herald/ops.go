package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/spf13/cobra"

	"github.com/heraldhq/herald/adapters/sqlstore"
)

// newBackupCmd is herald backup --to FILE: a consistent copy of the SQLite
// database, taken while servers use it.
func newBackupCmd(e *env) *cobra.Command {
	var (
		to  string
		out output
	)
	cmd := &cobra.Command{
		Use:   "backup --to FILE",
		Short: "Copy the SQLite database to a new file while the server runs",
		Long: "Copies the SQLite database (HERALD_DATABASE_URL) to FILE, which must not exist, while servers\n" +
			"go on using it: the copy is one consistent snapshot, holding every message acknowledged before the\n" +
			"backup began. FILE is created readable by its owner only (0600) and checked before the command\n" +
			"succeeds. To restore, stop the servers, copy FILE over the database and delete the database's\n" +
			"-wal and -shm files. A PostgreSQL database is backed up with pg_dump instead.",
		Args: noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		if err := out.check(); err != nil {
			return err
		}
		if to == "" {
			return usagef("--to is required: the new file to write the copy to")
		}
		cfg, err := e.config()
		if err != nil {
			return err
		}
		res, err := sqlstore.Backup(e.ctx, cfg.DatabaseURL, to)
		if err != nil {
			return err
		}
		if out.json {
			return printJSON(e.stdout, map[string]any{"from": res.From, "to": res.To, "bytes": res.Bytes})
		}
		_, err = fmt.Fprintf(e.stdout, "backed up %s to %s (%d bytes)\n", res.From, res.To, res.Bytes)
		return err
	})
	cmd.Flags().StringVar(&to, "to", "", "the file to write the copy to; it must not exist (required)")
	out.register(cmd, "")
	e.settingFlags(cmd)
	return cmd
}

// newHealthcheckCmd is herald healthcheck: it asks the server on
// HERALD_ADDR whether it is up, for a container's health command, where
// there is no curl.
func newHealthcheckCmd(e *env) *cobra.Command {
	var (
		ready   bool
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "healthcheck",
		Short: "Exit 0 when the server on HERALD_ADDR answers /healthz (or /readyz with --ready)",
		Long: "Asks the server listening on HERALD_ADDR, through loopback when it listens on every address,\n" +
			"for /healthz (the process serves) or, with --ready, /readyz (its database answers too), and\n" +
			"exits 0 on 200, 1 otherwise. With HERALD_TLS_CERT_FILE set it speaks HTTPS without checking the\n" +
			"certificate, whose name is not the loopback address; it sends nothing secret.",
		Args: noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		cfg, err := e.config()
		if err != nil {
			return err
		}
		host, port, err := net.SplitHostPort(cfg.Addr)
		if err != nil {
			return err
		}
		if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
			host = "127.0.0.1"
			if ip != nil && ip.To4() == nil {
				host = "::1"
			}
		}
		scheme, tr := "http", &http.Transport{Proxy: nil}
		if cfg.TLSCertFile != "" {
			scheme = "https"
			tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} // its own server, for a status code
		}
		path := "/healthz"
		if ready {
			path = "/readyz"
		}
		target := scheme + "://" + net.JoinHostPort(host, port) + path
		client := &http.Client{Transport: tr, Timeout: timeout}
		res, err := client.Get(target)
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err // net/http's "Get URL:" repeats the target
			}
			return fmt.Errorf("%s: %w", target, err)
		}
		defer res.Body.Close()
		io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16))
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("%s answered %s", target, res.Status)
		}
		_, err = fmt.Fprintf(e.stdout, "%s: %s\n", target, res.Status)
		return err
	})
	cmd.Flags().BoolVar(&ready, "ready", false, "ask /readyz: the database must answer too")
	cmd.Flags().DurationVar(&timeout, "timeout", 3*time.Second, "how long to wait for the answer")
	e.cfg.addFlags(cmd.Flags(), "addr", "tls-cert-file")
	cmd.Annotations = map[string]string{"settings": "true"}
	return cmd
}
