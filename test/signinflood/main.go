// Command signinflood measures what the dashboard's sign-in costs a herald
// server under three attacks that need no account, each against a fresh
// server on loopback with its own TMPDIR:
//
//   - multipart: -multipart parallel multipart POST /dashboard/login, each
//     with a file part of -part MiB, from as many loopback addresses;
//   - hashes: -hashes parallel wrong sign-ins, each with its own email
//     address, spread over -addresses loopback addresses (127.0.0.2, …);
//   - bodies: -bodies parallel url-encoded sign-ins of -body MiB each, from
//     one address.
//
// For each it prints the answers by status, the server's peak resident set
// (VmHWM, Linux) and the multipart-* files in its TMPDIR once every answer
// is in and again after a graceful stop. It takes the binary to measure, so
// two builds can be compared:
//
//	go build -o /tmp/herald ./cmd/herald && go run ./test/signinflood -herald /tmp/herald
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const operatorEmail = "ops@example.com"

func main() {
	binary := flag.String("herald", "", "the herald binary to measure (required)")
	multiparts := flag.Int("multipart", 4, "parallel multipart sign-ins")
	part := flag.Int("part", 50, "MiB in each multipart sign-in's file part")
	hashes := flag.Int("hashes", 60, "parallel wrong sign-ins")
	addresses := flag.Int("addresses", 6, "loopback addresses the wrong sign-ins come from")
	bodies := flag.Int("bodies", 24, "parallel url-encoded sign-ins with a large body")
	body := flag.Int("body", 9, "MiB in each large url-encoded body")
	flag.Parse()
	if *binary == "" {
		flag.Usage()
		os.Exit(2)
	}
	phases := []struct {
		name   string
		attack func(base string) []int
	}{
		{fmt.Sprintf("multipart: %d × %d MiB file part", *multiparts, *part), func(base string) []int {
			return parallel(*multiparts, func(i int) int {
				return post(base, i+2, multipartBody(*part<<20))
			})
		}},
		{fmt.Sprintf("hashes: %d wrong sign-ins from %d addresses", *hashes, *addresses), func(base string) []int {
			return parallel(*hashes, func(i int) int {
				form := url.Values{"email": {"guess" + strconv.Itoa(i) + "@example.com"}, "password": {"wrong password " + strconv.Itoa(i)}}
				return post(base, 2+i%*addresses, formBody(form.Encode()))
			})
		}},
		{fmt.Sprintf("bodies: %d × %d MiB url-encoded from one address", *bodies, *body), func(base string) []int {
			return parallel(*bodies, func(int) int {
				pad := strings.Repeat("a", *body<<20)
				return post(base, 2, formBody("email="+operatorEmail+"&password=wrong+password&pad="+pad))
			})
		}},
	}
	fmt.Println("| attack | answers | peak RSS (MiB) | multipart-* files after the answers | after a graceful stop |")
	fmt.Println("|---|---|---|---|---|")
	for _, p := range phases {
		row, err := measure(*binary, p.attack)
		if err != nil {
			fmt.Fprintln(os.Stderr, p.name+":", err)
			os.Exit(1)
		}
		fmt.Printf("| %s | %s |\n", p.name, row)
	}
}

// measure runs attack against a fresh server and returns its table cells.
func measure(binary string, attack func(base string) []int) (string, error) {
	dir, err := os.MkdirTemp("", "signinflood-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return "", err
	}
	env := append(os.Environ(), "HERALD_DATABASE_URL=sqlite:"+filepath.Join(dir, "herald.db"), "HERALD_LOG_FORMAT=json",
		"HERALD_ADDR=127.0.0.1:0", "TMPDIR="+tmp)
	create := exec.Command(binary, "admin", "create", "--email", operatorEmail)
	create.Env, create.Stdin = env, strings.NewReader("a long enough password\n")
	if out, err := create.CombinedOutput(); err != nil {
		return "", fmt.Errorf("admin create: %v\n%s", err, out)
	}
	cmd := exec.Command(binary, "serve")
	cmd.Env = env
	logs, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return "", err
	}
	defer cmd.Process.Kill()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(logs)
		for sc.Scan() {
			var l struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "listening" {
				select {
				case addr <- l.Addr:
				default:
				}
			}
		}
	}()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case <-time.After(30 * time.Second):
		return "", errors.New("herald did not listen within 30 s")
	}

	statuses := attack(base)
	rss, err := peakRSS(cmd.Process.Pid)
	if err != nil {
		return "", err
	}
	during := spooled(tmp)
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		return "", fmt.Errorf("herald stopped with %v", err)
	}
	return fmt.Sprintf("%s | %.0f | %s | %s", count(statuses), rss, during, spooled(tmp)), nil
}

// parallel runs n requests at once and returns their statuses (0: no
// answer).
func parallel(n int, request func(i int) int) []int {
	out := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { out[i] = request(i) })
	}
	wg.Wait()
	return out
}

type body struct {
	contentType string
	data        []byte
}

func formBody(s string) body { return body{"application/x-www-form-urlencoded", []byte(s)} }

func multipartBody(size int) body {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	w.WriteField("email", operatorEmail)
	w.WriteField("password", "wrong password")
	f, _ := w.CreateFormFile("upload", "big.bin")
	f.Write(make([]byte, size))
	w.Close()
	return body{w.FormDataContentType(), b.Bytes()}
}

// post sends b to the sign-in from 127.0.0.<host> and returns the status,
// or 0 when no answer came.
func post(base string, host int, b body) int {
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(host))}
	c := &http.Client{Timeout: time.Minute, Transport: &http.Transport{
		DialContext: (&net.Dialer{LocalAddr: local}).DialContext}}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, base+"/dashboard/login", bytes.NewReader(b.data))
	req.Header.Set("Content-Type", b.contentType)
	res, err := c.Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// count writes statuses as "401 ×54, 429 ×6".
func count(statuses []int) string {
	n := map[int]int{}
	for _, s := range statuses {
		n[s]++
	}
	keys := make([]int, 0, len(n))
	for s := range n {
		keys = append(keys, s)
	}
	sort.Ints(keys)
	var parts []string
	for _, s := range keys {
		name := strconv.Itoa(s)
		if s == 0 {
			name = "no answer"
		}
		parts = append(parts, fmt.Sprintf("%s ×%d", name, n[s]))
	}
	return strings.Join(parts, ", ")
}

// spooled counts the multipart-* files in dir and their size.
func spooled(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "multipart-*"))
	var size int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			size += st.Size()
		}
	}
	return fmt.Sprintf("%d (%d MiB)", len(files), size>>20)
}

// peakRSS is the process's peak resident set size (VmHWM) in MiB.
func peakRSS(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "VmHWM:" && f[2] == "kB" {
			kb, err := strconv.ParseFloat(f[1], 64)
			return kb / 1024, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/<pid>/status")
}
