package users

import (
	"context"
	"errors"
	"maps"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"tracker/audit"
	"tracker/db"
	"tracker/refusal"
)

// ErrLastAdmin refuses a change that would leave no global admin.
var ErrLastAdmin = refusal.New(refusal.Conflict, "last-admin", errors.New("the last global admin must stay one"))

// hashPassword checks a new password and hashes it.
func hashPassword(password string) (string, error) {
	if utf8.RuneCountInString(password) < MinPasswordRunes {
		return "", invalidf("password too short: at least %d characters", MinPasswordRunes)
	}
	// bcrypt reads at most 72 bytes; refuse rather than silently ignore the rest.
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcryptCost)
	if errors.Is(err, bcrypt.ErrPasswordTooLong) {
		return "", invalidf("password too long: at most 72 bytes")
	}
	return string(hash), err
}

// List returns every account with its grants.
func (s *Store) List(ctx context.Context) ([]Account, error) {
	us, err := s.q.UserList(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Account, len(us))
	for i, u := range us {
		ps, err := s.q.UserProjects(ctx, u.ID)
		if err != nil {
			return nil, err
		}
		out[i] = account(u, ps)
	}
	return out, nil
}

// SetPassword gives an account a new password.
func (s *Store) SetPassword(ctx context.Context, u Account, password string) error {
	hash, err := hashPassword(password)
	if err != nil {
		return err
	}
	return db.WithTx(ctx, s.pool, func(q *db.Queries) error {
		if err := q.UserSetPassword(ctx, db.UserSetPasswordParams{ID: u.ID, PasswordHash: hash}); err != nil {
			return err
		}
		return u.record(ctx, q, "user.password", 0, nil)
	})
}

// SetRole changes an account's role; the last global admin stays one.
func (s *Store) SetRole(ctx context.Context, u Account, role string) error {
	if role != RoleAdmin && role != RoleProjectAdmin {
		return invalidf("unknown role %q", role)
	}
	return s.keepingAnAdmin(ctx, u.ID, role != RoleAdmin, func(q *db.Queries) error {
		if err := q.UserSetRole(ctx, db.UserSetRoleParams{ID: u.ID, Role: role}); err != nil {
			return err
		}
		return u.record(ctx, q, "user.role", 0, map[string]any{"role": role})
	})
}

// Delete removes an account; the last global admin stays.
func (s *Store) Delete(ctx context.Context, u Account) error {
	return s.keepingAnAdmin(ctx, u.ID, true, func(q *db.Queries) error {
		n, err := q.UserDelete(ctx, u.ID)
		if err == nil && n == 0 {
			return ErrNoUser
		}
		if err != nil {
			return err
		}
		return u.record(ctx, q, "user.delete", 0, nil)
	})
}

// keepingAnAdmin runs change in a transaction that holds the global
// admins' rows, refusing it when it removes (removes: true) account id
// and id is the only global admin.
func (s *Store) keepingAnAdmin(ctx context.Context, id int32, removes bool, change func(*db.Queries) error) error {
	return db.WithTx(ctx, s.pool, func(q *db.Queries) error {
		admins, err := q.UsersAdminsLock(ctx)
		if err != nil {
			return err
		}
		if removes && len(admins) == 1 && admins[0] == id {
			return ErrLastAdmin
		}
		return change(q)
	})
}

// Grant lets a project admin run a project; Revoke takes it back.
func (s *Store) Grant(ctx context.Context, u Account, projectID int32) error {
	return db.WithTx(ctx, s.pool, func(q *db.Queries) error {
		if err := q.ProjectAdminGrant(ctx, db.ProjectAdminGrantParams{UserID: u.ID, ProjectID: projectID}); err != nil {
			return err
		}
		return u.record(ctx, q, "user.grant", projectID, nil)
	})
}

func (s *Store) Revoke(ctx context.Context, u Account, projectID int32) error {
	return db.WithTx(ctx, s.pool, func(q *db.Queries) error {
		if err := q.ProjectAdminRevoke(ctx, db.ProjectAdminRevokeParams{UserID: u.ID, ProjectID: projectID}); err != nil {
			return err
		}
		return u.record(ctx, q, "user.revoke", projectID, nil)
	})
}

// record writes a change to the account to the audit log, naming it.
func (u Account) record(ctx context.Context, q *db.Queries, action string, projectID int32, detail map[string]any) error {
	named := map[string]any{"user": u.Username}
	maps.Copy(named, detail)
	return audit.Record(ctx, q, action, projectID, named)
}
