package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"tracker/db/dbtest"
	"tracker/users"
)

// TestTokenCommands: token create prints a token once, which authenticates
// as its account; the database keeps only its hash; token list shows it,
// and after token revoke it is refused.
func TestTokenCommands(t *testing.T) {
	t.Parallel()
	dsn := dbtest.NewDSN(t)
	ctx := context.Background()
	if code, _, errOut := tracker(t, dsn, "", map[string]string{"TRACKER_PASSWORD": "correct horse battery"}, "admin", "create", "root"); code != 0 {
		t.Fatal(errOut)
	}
	trackerOK(t, dsn, "", "project", "create", "test")
	secret := strings.TrimSpace(trackerOK(t, dsn, "", "token", "create", "--scope", "write", "--projects", "test", "root", "hourly trainer"))
	if !strings.HasPrefix(secret, "trk_") {
		t.Fatalf("token create printed %q", secret)
	}
	pool := openPool(t, dsn)
	store := users.NewStore(pool)
	a, tok, err := store.Authenticate(ctx, secret)
	if err != nil || a.Username != "root" || tok.Name != "hourly trainer" || !tok.CanWrite() || len(tok.Projects) != 1 {
		t.Fatalf("the token printed: %+v %+v %v", a, tok, err)
	}
	if n := dbtest.Count(t, pool, "SELECT count(*) FROM api_tokens WHERE position(convert_to($1, 'UTF8') in secret_hash) > 0 OR octet_length(secret_hash) <> 32",
		secret[strings.LastIndexByte(secret, '_')+1:]); n != 0 {
		t.Error("the secret is stored, not its hash")
	}

	var listed tokenJSON
	if err := json.Unmarshal([]byte(trackerOK(t, dsn, "", "token", "list", "root")), &listed); err != nil || listed.Name != "hourly trainer" || listed.RevokedAt != nil {
		t.Fatalf("token list: %+v %v", listed, err)
	}
	trackerOK(t, dsn, "", "token", "revoke", "1")
	if _, _, err := store.Authenticate(ctx, secret); !errors.Is(err, users.ErrRevokedToken) {
		t.Errorf("a revoked token authenticates: %v", err)
	}

	for name, args := range map[string][]string{
		"unknown scope":   {"token", "create", "--scope", "admin", "root", "x"},
		"unknown account": {"token", "create", "nobody", "x"},
		"unknown project": {"token", "create", "--projects", "none", "root", "x"},
		"empty name":      {"token", "create", "root", ""},
		"no such id":      {"token", "revoke", "99"},
	} {
		if code, _, _ := tracker(t, dsn, "", nil, args...); code == 0 {
			t.Errorf("%s: exit 0", name)
		}
	}
}
