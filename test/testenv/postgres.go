package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/sqlstore"
)

// PostgresURLVar names the server tests create their databases on, e.g.
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
const PostgresURLVar = "HERALD_TEST_POSTGRES_URL"

// PostgresDatabase creates a randomly named, empty database on the server
// PostgresURLVar names, drops it when the test ends, and returns its URL.
// Without the variable the test is skipped, except under CI (CI=true), where
// it fails: CI must run every PostgreSQL test.
func PostgresDatabase(t testing.TB) string {
	t.Helper()
	admin := os.Getenv(PostgresURLVar)
	if admin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: under CI the PostgreSQL tests must run", PostgresURLVar)
		}
		t.Skipf("set %s to run the PostgreSQL tests", PostgresURLVar)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	adminDB, _, err := sqlstore.Open(ctx, sqlstore.Config{DatabaseURL: admin, MaxOpenConns: 1})
	if err != nil {
		t.Fatalf("open %s: %v", PostgresURLVar, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "herald_test_" + hex.EncodeToString(b[:])
	if _, err := adminDB.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		adminDB.Close()
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		defer adminDB.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := adminDB.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("parse %s: %v", PostgresURLVar, err)
	}
	u.Path = "/" + name
	return u.String()
}
