package delivery

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Both scrubWebhookBatch and foreignNumbers.split rebuild a webhook batch
// list by list and item by item. A field added to the batch, to one of its
// items or to what an item holds, and not copied there, would be lost
// between the decoder and the use case without a word. These tests fill
// every exported field of a batch (one element in each list, every pointer
// set) and fail naming each field the result lost.

// fillBatch sets every exported field reachable from v: strings to s,
// numbers to 7, booleans to true, times to one instant, one element in each
// slice and map. Structs with no exported field (domain enums) stay zero.
func fillBatch(v reflect.Value, s string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(7)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillBatch(p.Elem(), s)
		v.Set(p)
	case reflect.Slice:
		l := reflect.MakeSlice(v.Type(), 1, 1)
		fillBatch(l.Index(0), s)
		v.Set(l)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillBatch(k, s)
		fillBatch(e, s)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillBatch(v.Field(i), s)
			}
		}
	default:
		panic(fmt.Sprintf("fillBatch: no value for a %s", v.Type()))
	}
}

// lostFields walks in and out together and lists, by path, each field of
// in that out lost or holds otherwise than want says (want maps a string of
// in to the one out must hold).
func lostFields(in, out reflect.Value, path string, want func(string) string) []string {
	switch in.Kind() {
	case reflect.String:
		if out.String() != want(in.String()) {
			return []string{fmt.Sprintf("%s: %q, want %q", path, out.String(), want(in.String()))}
		}
	case reflect.Pointer:
		if in.IsNil() {
			return nil
		}
		if out.IsNil() {
			return []string{path + ": nil"}
		}
		return lostFields(in.Elem(), out.Elem(), path, want)
	case reflect.Slice:
		var lost []string
		for i := range in.Len() {
			p := fmt.Sprintf("%s[%d]", path, i)
			if i >= out.Len() {
				lost = append(lost, p+": missing")
				continue
			}
			lost = append(lost, lostFields(in.Index(i), out.Index(i), p, want)...)
		}
		return lost
	case reflect.Map:
		var lost []string
		for _, k := range in.MapKeys() {
			p := fmt.Sprintf("%s[%v]", path, k)
			if e := out.MapIndex(k); !e.IsValid() {
				lost = append(lost, p+": missing")
			} else {
				lost = append(lost, lostFields(in.MapIndex(k), e, p, want)...)
			}
		}
		return lost
	case reflect.Struct:
		if in.Type() == reflect.TypeFor[time.Time]() {
			if !in.Interface().(time.Time).Equal(out.Interface().(time.Time)) {
				return []string{path + ": another time"}
			}
			return nil
		}
		var lost []string
		for i := range in.NumField() {
			if f := in.Type().Field(i); f.IsExported() {
				lost = append(lost, lostFields(in.Field(i), out.Field(i), path+"."+f.Name, want)...)
			}
		}
		return lost
	default:
		if in.Interface() != out.Interface() {
			return []string{fmt.Sprintf("%s: %v, want %v", path, out.Interface(), in.Interface())}
		}
	}
	return nil
}

// filledBatch is a batch with every field set, its strings to s.
func filledBatch(s string) ports.WebhookBatch {
	var b ports.WebhookBatch
	fillBatch(reflect.ValueOf(&b).Elem(), s)
	return b
}

// TestScrubWebhookBatchKeepsEveryField: every text of the batch comes out
// scrubbed, every other field as it went in. The exceptions are Herald's
// own: its code on a failure (Meta never reports one, so the scrubbed
// failure has none) and the decoder's Skipped lines (which quote what they
// name, and go to the log, never to the store).
func TestScrubWebhookBatchKeepsEveryField(t *testing.T) {
	t.Parallel()
	in := filledBatch("a\x00b")
	out := scrubWebhookBatch(in)
	notFromMeta := map[string]bool{
		"batch.Statuses[0].Failure.HeraldCode":        true,
		"batch.Inbound[0].Message.Failure.HeraldCode": true,
		"batch.Errors[0].HeraldCode":                  true,
		"batch.Skipped[0]":                            true,
	}
	for _, l := range lostFields(reflect.ValueOf(in), reflect.ValueOf(out), "batch", domain.ScrubText) {
		if path, _, _ := strings.Cut(l, ": "); !notFromMeta[path] {
			t.Errorf("scrubWebhookBatch lost %s", l)
		}
	}
}

// TestSplitKeepsEveryFieldOfOurNumbers: a batch whose items are all for
// Herald's numbers comes out of the split whole.
func TestSplitKeepsEveryFieldOfOurNumbers(t *testing.T) {
	t.Parallel()
	const ours = "106540352242922"
	in := filledBatch(ours)
	out, foreign := newForeignNumbers(numbersFunc(func(id string) bool { return id == ours })).split(in)
	if len(foreign) != 0 {
		t.Errorf("foreign items %v, want none", foreign)
	}
	same := func(s string) string { return s }
	for _, l := range lostFields(reflect.ValueOf(in), reflect.ValueOf(out), "batch", same) {
		t.Errorf("split lost %s", l)
	}
	// And a batch for another number keeps only what names no number.
	out, foreign = newForeignNumbers(numbersFunc(func(string) bool { return false })).split(in)
	if len(out.Templates) != 1 || len(out.Categories) != 1 || len(out.Statuses)+len(out.Inbound)+
		len(out.IdentityChanges)+len(out.Preferences) != 0 {
		t.Errorf("split of another number's batch kept %+v", out)
	}
	if foreign[ours] != 4 {
		t.Errorf("foreign items %v, want the 4 that name a number", foreign)
	}
}

type numbersFunc func(string) bool

func (f numbersFunc) IsOurs(id string) bool { return f(id) }
