// Package browser tests the dashboard as a person uses it: the built herald
// binary serves on a free loopback port with a temporary SQLite file and
// the sandbox sender, and a headless Chromium (Debian's chromium package,
// driven through chromedp) signs in, makes and revokes an API key, creates,
// pauses and edits a campaign, and watches a sandbox send reach its
// statistics and its contact's thread. It also checks that a form posted
// from another site is refused and that a session cookie and an API key
// each open only their own door. A screenshot of each page is written under
// artifacts/screenshots/ ($HERALD_ARTIFACTS_DIR/screenshots/ when set).
//
// Without a Chromium the tests are skipped, except under CI=true, where
// they fail: .ci/run installs the package when it is missing.
package browser
