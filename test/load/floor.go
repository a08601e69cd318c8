package main

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net"
	"net/http"

	"github.com/heraldhq/herald/domain"
)

// startFloor serves the floor on a loopback port: what any server of this
// API must do at the least, with no storage, so that Herald's figures can be
// read as a ratio to it. Both routes do Herald's token parse and
// constant-time hash compare and its phone validation; send-campaign also
// decodes strictly and answers 202, lookup answers a fixed contact.
func startFloor(token string) (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	want := sha256.Sum256([]byte(token))
	mux := http.NewServeMux()
	mux.Handle("POST /v1/messages/send-campaign", floorAuth(want, floorSend))
	mux.Handle("GET /v1/contacts/by-phone/{phone}", floorAuth(want, floorLookup))
	go http.Serve(ln, mux)
	return ln, nil
}

// floorAuth answers 401 unless X-API-KEY parses as a token whose hash is
// want.
func floorAuth(want [sha256.Size]byte, next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, err := domain.ParseToken(r.Header.Get("X-API-KEY"))
		got := tok.Hash()
		if err != nil || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next(w, r)
	})
}

func floorSend(w http.ResponseWriter, r *http.Request) {
	var in struct {
		PhoneNumber    string   `json:"phoneNumber"`
		CampaignID     string   `json:"campaignId"`
		Variables      []string `json:"variables"`
		MediaHeaderURL string   `json:"mediaHeaderUrl"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if _, err := domain.ParsePhoneNumber(in.PhoneNumber); err != nil {
		w.WriteHeader(http.StatusUnprocessableEntity)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	fmt.Fprintf(w, `{"id":"msg_x","status":"queued","campaignId":%q,"phoneNumber":%q}`, in.CampaignID, in.PhoneNumber)
}

func floorLookup(w http.ResponseWriter, r *http.Request) {
	phone, err := domain.ParsePhoneNumber(r.PathValue("phone"))
	if err != nil {
		w.WriteHeader(http.StatusUnprocessableEntity)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"ct_x","phoneNumber":%q,"name":"","optedOut":false}`, phone.String())
}
