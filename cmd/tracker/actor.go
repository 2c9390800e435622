package main

import (
	"context"
	"os"
	"os/user"
	"strconv"

	"tracker/audit"
)

// asShellUser is ctx carrying the operating-system user running the
// command as its actor: what a command changes is in the audit log beside
// what admins change in the panel. The name is read from the process's
// user id, not from $USER, which anyone sets as they like.
func asShellUser(ctx context.Context) context.Context {
	return audit.NewContext(ctx, audit.Shell(osUserName()))
}

func osUserName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "uid " + strconv.Itoa(os.Getuid())
}
