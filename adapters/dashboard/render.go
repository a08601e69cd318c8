package dashboard

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

//go:embed templates
var templateFiles embed.FS

// pages are the parsed templates, one per page, each with the layout.
type pages map[string]*template.Template

var funcs = template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"whenPtr": func(t *time.Time) string {
		if t == nil {
			return "never"
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"percent": func(f float64) string { return strconv.FormatFloat(f*100, 'f', 1, 64) + "%" },
	"count": func(m map[domain.MessageStatus]int, s string) int {
		st, _ := domain.ParseMessageStatus(s)
		return m[st]
	},
	// delivered counts messages that reached the phone: delivered or read.
	"delivered": func(m map[domain.MessageStatus]int) int { return m[domain.StatusDelivered] + m[domain.StatusRead] },
	"chart":     timelineChart,
	"plus1":     func(i int) int { return i + 1 },
	"shown":     shown,
	// ms is a duration in milliseconds, as an attempt's is shown.
	"ms": func(d time.Duration) string {
		return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + " ms"
	},
	// answer is the head of an endpoint's answer as text.
	"answer":   func(b []byte) string { return shown(strings.ToValidUTF8(string(b), "\uFFFD")) },
	"filename": filename,
	"iso":      func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"mediaURL": mediaURL,
	// nth is s[i], or "" past its end.
	"nth": func(s []string, i int) string {
		if i < len(s) {
			return s[i]
		}
		return ""
	},
	"replyTypes": func() []string { return replyTypes },
	// simulate is the sandbox form's data: its token, the values typed
	// and the page to return to.
	"simulate": func(csrf, from, text, ret string) simulateData {
		return simulateData{CSRF: csrf, From: from, Text: text, Return: ret}
	},
	// field is one text field of the Templates form with its findings.
	"field": func(name, label, value string, findings map[string][]string, hint string) formField {
		return formField{Name: name, Label: label, Value: value, Errors: findings[name], Hint: hint}
	},
}

// mediaURL is where the dashboard serves the file of a contact's message
// (media.go): its Herald media id is named after the thread entry.
func mediaURL(e domain.Entry) string {
	return "/dashboard/media/" + url.PathEscape(string(domain.InboundMediaID(e.ID))) + "/content"
}

// simulateData is the sandbox form's template data.
type simulateData struct{ CSRF, From, Text, Return string }

// formField is one text field of a form, with what is wrong with it.
type formField struct {
	Name, Label, Value, Hint string
	Errors                   []string
}

func mustParsePages() pages {
	names, err := templateFiles.ReadDir("templates")
	if err != nil {
		panic(err)
	}
	p := pages{}
	for _, n := range names {
		name := strings.TrimSuffix(n.Name(), ".html")
		if name == "layout" {
			continue
		}
		p[name] = template.Must(template.New("layout.html").Funcs(funcs).
			ParseFS(templateFiles, "templates/layout.html", "templates/"+n.Name()))
	}
	return p
}

// view is what every page's template receives: the page's own data in
// Page, and the layout's.
type view struct {
	Title  string
	Nav    string // the section to mark current
	Email  string // the signed-in operator, empty on the sign-in page
	CSRF   string
	Error  string // a problem to show above the page's content
	Notice string // a confirmation to show above it
	Page   any
}

// render writes a page. It renders to a buffer first, so a template error
// becomes a clean 500 rather than half a page.
func (h *dash) render(w http.ResponseWriter, r *http.Request, status int, name string, v view) {
	in := operator(r)
	v.Email, v.CSRF = in.session.Email, in.csrf
	var buf bytes.Buffer
	if err := h.pages[name].Execute(&buf, v); err != nil {
		h.log.Error("rendering a dashboard page failed", zap.String("page", name), zap.String("request_id", usecase.RequestID(r.Context())), zap.Error(err))
		http.Error(w, "The page could not be rendered.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// fail shows an error page with a message for people.
func (h *dash) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	h.render(w, r, status, "error", view{Title: http.StatusText(status), Page: msg})
}

// failErr shows the error page for a use case's error: not-found errors as
// 404, an unreachable store as 503, anything else as 500 (logged once,
// here, and never shown).
func (h *dash) failErr(w http.ResponseWriter, r *http.Request, err error) {
	var de *domain.Error
	switch {
	case errors.Is(err, ports.ErrUnavailable):
		h.fail(w, r, http.StatusServiceUnavailable, "The database cannot be reached just now. Nothing was changed; try again in a moment.")
	case domain.IsNotFound(err) && errors.As(err, &de):
		h.fail(w, r, http.StatusNotFound, "There is nothing here: "+de.Detail+".")
	default:
		h.log.Error("dashboard request failed", zap.String("path", r.URL.Path), zap.String("request_id", usecase.RequestID(r.Context())), zap.Error(err))
		h.fail(w, r, http.StatusInternalServerError, "Something went wrong on our side. Nothing was changed.")
	}
}

// formError is the message for a refused form, or "" when err is not a
// problem with what was entered.
func formError(err error) string {
	var de *domain.Error
	if !errors.As(err, &de) || domain.IsNotFound(err) {
		return ""
	}
	msg := de.Detail
	if msg == "" {
		msg = strings.ReplaceAll(string(de.Code), "_", " ")
	}
	if de.Param != "" {
		msg = de.Param + ": " + msg
	}
	return msg
}
