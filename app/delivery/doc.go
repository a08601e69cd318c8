// Package delivery is everything that happens to a message after Herald
// accepted it (202): the dispatcher that claims due messages and sends them
// through the sender for their key's mode, at the number's pace, with the
// retry policy (retry.go); the status pipeline that moves messages forward
// (record_status_event.go), fed by the sandbox and by Meta's webhooks;
// Meta's webhooks received, verified, stored, applied, retried and replayed;
// the template status and category Meta reports, applied to campaigns; and
// what people do on WhatsApp that changes what may still be sent to them
// (STOP, marketing opt-outs, changed numbers: whatsapp_identities.go,
// marketing_opt_out.go).
//
// It never imports app: app imports it (send-campaign wakes the
// dispatcher; template sync and contact sync apply template statuses and
// opt-outs through it), and what both use is in app/usecase.
package delivery
