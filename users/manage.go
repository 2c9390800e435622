package users

import (
	"context"
	"errors"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"golang.org/x/crypto/bcrypt"

	"tracker/db"
)

// ErrLastAdmin refuses a change that would leave no global admin.
var ErrLastAdmin = errors.New("the last global admin must stay one")

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
func (s *Store) SetPassword(ctx context.Context, id int32, password string) error {
	hash, err := hashPassword(password)
	if err != nil {
		return err
	}
	return s.q.UserSetPassword(ctx, db.UserSetPasswordParams{ID: id, PasswordHash: hash})
}

// SetRole changes an account's role; the last global admin stays one.
func (s *Store) SetRole(ctx context.Context, id int32, role string) error {
	if role != RoleAdmin && role != RoleProjectAdmin {
		return invalidf("unknown role %q", role)
	}
	return s.keepingAnAdmin(ctx, id, role != RoleAdmin, func(q *db.Queries) error {
		return q.UserSetRole(ctx, db.UserSetRoleParams{ID: id, Role: role})
	})
}

// Delete removes an account; the last global admin stays.
func (s *Store) Delete(ctx context.Context, id int32) error {
	return s.keepingAnAdmin(ctx, id, true, func(q *db.Queries) error {
		n, err := q.UserDelete(ctx, id)
		if err == nil && n == 0 {
			return ErrNoUser
		}
		return err
	})
}

// keepingAnAdmin runs change in a transaction that holds the global
// admins' rows, refusing it when it removes (removes: true) account id
// and id is the only global admin.
func (s *Store) keepingAnAdmin(ctx context.Context, id int32, removes bool, change func(*db.Queries) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		q := s.q.WithTx(tx)
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
func (s *Store) Grant(ctx context.Context, id, projectID int32) error {
	return s.q.ProjectAdminGrant(ctx, db.ProjectAdminGrantParams{UserID: id, ProjectID: projectID})
}

func (s *Store) Revoke(ctx context.Context, id, projectID int32) error {
	return s.q.ProjectAdminRevoke(ctx, db.ProjectAdminRevokeParams{UserID: id, ProjectID: projectID})
}
