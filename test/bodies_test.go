package test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// spooling are the net/http request methods that parse a multipart body
// with net/http's own limits: ParseMultipartForm and the methods that call
// it write large parts to temporary files, which are removed only for the
// request the server handed to the handler, not a copy of it. Herald reads
// bodies only through its own bounded readers (httpapi's JSON, the
// dashboard's url-encoded forms, and the one file of a media upload,
// streamed through mime/multipart's Reader into bounded memory).
var spooling = map[string]bool{
	"ParseMultipartForm": true, "FormValue": true, "PostFormValue": true, "FormFile": true, "MultipartReader": true,
}

// TestNoCodeParsesMultipartBodies: no Go file of the project outside tests
// calls a method that could spool a request body to disk.
func TestNoCodeParsesMultipartBodies(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && spooling[sel.Sel.Name] {
					rel, _ := filepath.Rel(root, path)
					t.Errorf("%s calls %s, which may write a request body to temporary files", rel, sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("only %d Go files were read: the check is not looking at the project", files)
	}
}
