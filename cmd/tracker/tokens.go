package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"tracker/projects"
	"tracker/users"
)

// tokenCreateOptions are the flags of token create.
type tokenCreateOptions struct {
	Scope    string // --scope
	Projects string // --projects
}

// runTokenCreate makes an API token of an account and prints it, the one
// time it can be seen: tracker token create USER NAME.
func runTokenCreate(ctx context.Context, a *app, args []string, o tokenCreateOptions) error {
	if err := users.ValidTokenName(args[1]); err != nil {
		return &usageError{err.Error()}
	}
	return a.withDatabase(ctx, func(d *database) error {
		store := users.NewStore(d.pool)
		owner, err := store.AccountByName(ctx, args[0])
		if errors.Is(err, users.ErrNoUser) {
			return fmt.Errorf("no account %q", args[0])
		}
		if err != nil {
			return err
		}
		var ids []int32
		if o.Projects != "" {
			ps := projects.NewStore(d.pool)
			for _, slug := range strings.Split(o.Projects, ",") {
				p, err := ps.Get(ctx, strings.TrimSpace(slug))
				if err != nil {
					return fmt.Errorf("project %q: %w", slug, err)
				}
				ids = append(ids, p.ID)
			}
		}
		t, secret, err := store.CreateToken(ctx, owner, args[1], o.Scope, ids)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.io.err, "token %d (%s) of %s made, scope %s: it is shown this once\n", t.ID, t.Name, owner.Username, t.Scope)
		printf(a, "%s\n", secret)
		return nil
	})
}

// tokenJSON is a token as token list prints it, one a line.
type tokenJSON struct {
	ID         int32      `json:"id"`
	User       string     `json:"user"`
	Name       string     `json:"name"`
	Scope      string     `json:"scope"`
	Projects   []int32    `json:"projects"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

// runTokenList prints every account's tokens (USER's only when given),
// newest first, revoked ones too: tracker token list [USER].
func runTokenList(ctx context.Context, a *app, args []string) error {
	return a.withDatabase(ctx, func(d *database) error {
		store := users.NewStore(d.pool)
		var ts []users.Token
		var err error
		if len(args) == 1 {
			owner, err := store.AccountByName(ctx, args[0])
			if errors.Is(err, users.ErrNoUser) {
				return fmt.Errorf("no account %q", args[0])
			}
			if err != nil {
				return err
			}
			ts, err = store.Tokens(ctx, owner)
			if err != nil {
				return err
			}
		} else if ts, err = store.AllTokens(ctx); err != nil {
			return err
		}
		for _, t := range ts {
			if err := printJSONLine(a, tokenJSON{ID: t.ID, User: t.Username, Name: t.Name, Scope: t.Scope, Projects: t.Projects,
				CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt}); err != nil {
				return err
			}
		}
		return nil
	})
}

// runTokenRevoke revokes a token: tracker token revoke ID.
func runTokenRevoke(ctx context.Context, a *app, args []string) error {
	id, err := strconv.ParseInt(args[0], 10, 32)
	if err != nil || id < 1 {
		return &usageError{fmt.Sprintf("%q is no token id (token list prints them)", args[0])}
	}
	return a.withDatabase(ctx, func(d *database) error {
		t, err := users.NewStore(d.pool).RevokeToken(ctx, int32(id), 0)
		if err != nil {
			return err
		}
		printf(a, "token %d (%s) revoked\n", t.ID, t.Name)
		return nil
	})
}
