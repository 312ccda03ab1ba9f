package workspace

import (
	"errors"
	"io/fs"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

var sentinels = []error{ErrNotFound, ErrNotDir, ErrUnreadable, ErrTooBroad, ErrNothingDropped, ErrSeveralDropped, ErrOutsideRoot}

// requireKind checks that err is the want kind and no other, so the UI can tell them apart.
func requireKind(t *testing.T, err, want error) {
	t.Helper()
	require.Error(t, err)
	for _, s := range sentinels {
		require.Equal(t, s == want, errors.Is(err, s), "%q: errors.Is(%v)", err, s)
	}
}

// Permission problems cannot be staged on disk when the tests run as root, so the wording is
// checked on the errors the OS would return.
func TestFSErrorWording(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cause error
		kind  error
		msg   string
	}{
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}, ErrUnreadable, `Gantry cannot read "/x": permission denied.`},
		{&fs.PathError{Op: "stat", Path: "/x", Err: syscall.ENOENT}, ErrNotFound, `"/x" does not exist (was it moved or deleted?)`},
		{&fs.PathError{Op: "stat", Path: "/x", Err: syscall.ENOTDIR}, ErrNotFound, `"/x" does not exist (was it moved or deleted?)`},
		{&fs.PathError{Op: "read", Path: "/x", Err: syscall.EIO}, ErrUnreadable, `Gantry cannot read "/x": input/output error.`},
		{syscall.EIO, ErrUnreadable, `Gantry cannot read "/x": input/output error.`},
	}
	for _, c := range cases {
		err := fsError("/x", c.cause)
		requireKind(t, err, c.kind)
		require.EqualError(t, err, c.msg)
		require.ErrorIs(t, err, c.cause, "the cause stays reachable for logging")
	}
}
