package whatsapp_test

import (
	"testing"

	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/ports"
)

// TestModulesShareOneClient checks that the live sender and the template
// source are the same client.
func TestModulesShareOneClient(t *testing.T) {
	t.Parallel()
	var got struct {
		fx.In
		Client *whatsapp.Client
		Live   ports.WhatsAppSender `name:"live"`
		Source ports.TemplateSource
	}
	app := fxtest.New(t, fx.NopLogger,
		fx.Supply(whatsapp.Config{APIURL: "http://127.0.0.1:1/v24.0", AccessToken: "t", PhoneNumberID: "1", WABAID: "2"}),
		whatsapp.Module, whatsapp.SenderModule, whatsapp.TemplateSourceModule,
		fx.Populate(&got))
	app.RequireStart().RequireStop()
	if got.Live != ports.WhatsAppSender(got.Client) || got.Source != ports.TemplateSource(got.Client) {
		t.Fatal("the sender and the template source are not the module's client")
	}
	if got.Source.Account() != "2" {
		t.Fatalf("Account() = %q", got.Source.Account())
	}
}
