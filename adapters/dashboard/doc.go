// Package dashboard is Herald's web dashboard: server-rendered pages under
// /dashboard (html/template, embedded CSS and a little JavaScript, nothing
// from other hosts) where operators manage API keys, campaigns and their
// variable mappings, and read statistics, contacts and threads.
//
// Operators sign in with an email address and password (herald admin
// create). A sign-in is a server-side session named by a random token in an
// HttpOnly, SameSite=Lax cookie scoped to /dashboard; the store keeps only
// the token's hash. Every state-changing form carries a token derived from
// the session's, and http.CrossOriginProtection refuses cross-site posts
// before any handler runs. Forms are small url-encoded bodies, refused
// unread in any other form (forms.go); sign-in attempts are limited per
// client and per email address (attempts.go); text that others chose is
// isolated from the page's direction (bidi.go). The dashboard never reads
// X-API-KEY, and the cookie never reaches /v1.
package dashboard
