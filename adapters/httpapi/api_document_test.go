package httpapi_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/test/fakemeta"
)

// TestDocumentHeaderKeepsItsName: a document header goes to Meta with a
// file name, so the recipient sees terms.pdf rather than an unnamed file.
// The dry run shows it in the payload (which Meta's OpenAPI document
// accepts), and the stored message keeps it for the dispatcher, on every
// engine.
func TestDocumentHeaderKeepsItsName(t *testing.T) {
	t.Parallel()
	spec := fakemeta.LoadSpec(t)
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		ws := principalWorkspace(t, e)
		clock, ids := system.Clock{}, system.NewIDs()
		c, err := app.NewCreateCampaignHandler(e.store, e.store, e.store, nil, app.NewEnsureDefaultWorkspaceHandler(e.store, clock, ids),
			clock, ids).Handle(context.Background(), app.CreateCampaign{Workspace: string(ws), Name: "Terms",
			TemplateName: "terms_update", Language: "en_US", HeaderFormat: domain.HeaderDocument,
			Body: "Hi {{1}}, our terms changed", Activate: true})
		if err != nil {
			t.Fatal(err)
		}
		send := func(query, url string) (int, string) {
			t.Helper()
			body, _ := json.Marshal(map[string]any{"phoneNumber": phone, "campaignId": string(c.ID),
				"variables": []string{"Ana"}, "mediaHeaderUrl": url})
			res, got := e.do(t, "POST", sendURL+query, e.keyed(e.key), string(body))
			return res.StatusCode, got
		}
		for _, tc := range []struct{ url, want string }{
			{"https://cdn.example.com/legal/terms.pdf?X-Amz-Signature=abc", "terms.pdf"},
			{"https://cdn.example.com/legal/Terms%20of%20service.pdf", "Terms of service.pdf"},
			{"https://cdn.example.com/.pdf", "document.pdf"},
		} {
			status, body := send("?dryRun=true", tc.url)
			if status != 200 {
				t.Fatalf("dry run of %s: %d %s", tc.url, status, body)
			}
			var dry struct{ Payload json.RawMessage }
			json.Unmarshal([]byte(body), &dry)
			if err := spec.Check("TemplateMessage", dry.Payload); err != nil {
				t.Errorf("the dry run's payload: %v", err)
			}
			var p struct {
				Template struct {
					Components []struct {
						Type       string
						Parameters []struct {
							Type     string
							Document map[string]string
						}
					}
				}
			}
			json.Unmarshal(dry.Payload, &p)
			header := p.Template.Components[0]
			want := map[string]string{"link": tc.url, "filename": tc.want}
			if header.Type != "header" || header.Parameters[0].Type != "document" || !equalMaps(header.Parameters[0].Document, want) {
				t.Errorf("dry run of %s: header %+v, want the document %v", tc.url, header, want)
			}
		}

		status, body := send("", "https://cdn.example.com/legal/terms.pdf?X-Amz-Signature=abc")
		if status != 202 {
			t.Fatalf("send: %d %s", status, body)
		}
		id := decode[struct{ ID string }](t, body).ID
		res, body := e.do(t, "GET", "/v1/messages/"+id, e.keyed(e.key), "")
		if got := decode[struct{ MediaHeaderFilename *string }](t, body).MediaHeaderFilename; res.StatusCode != 200 || got == nil || *got != "terms.pdf" {
			t.Fatalf("the stored message: %d %s; want mediaHeaderFilename terms.pdf", res.StatusCode, body)
		}
		res, body = e.do(t, "POST", sendURL, e.keyed(e.key), sendBody(phone, e.active, "Ana", "1234"))
		if res.StatusCode != 202 {
			t.Fatalf("send without a media header: %d %s", res.StatusCode, body)
		}
		res, body = e.do(t, "GET", "/v1/messages/"+decode[struct{ ID string }](t, body).ID, e.keyed(e.key), "")
		if got := decode[map[string]any](t, body)["mediaHeaderFilename"]; res.StatusCode != 200 || got != nil {
			t.Fatalf("a message without a document: mediaHeaderFilename %v, want null", got)
		}
	})
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
