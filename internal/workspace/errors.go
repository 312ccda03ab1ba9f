package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// Sentinels for errors.Is. The errors returned carry a sentence meant for a person (shown
// as is in a dialog); these only say which kind of problem it was.
var (
	ErrNotFound       = errors.New("folder not found")
	ErrNotDir         = errors.New("not a folder")
	ErrUnreadable     = errors.New("folder cannot be read")
	ErrTooBroad       = errors.New("folder too broad to be a project")
	ErrNothingDropped = errors.New("nothing dropped")
	ErrSeveralDropped = errors.New("several items dropped")
	ErrOutsideRoot    = errors.New("path outside the workspace")
)

// userError is an error whose text is written for the person using Gantry.
type userError struct {
	msg     string
	wrapped []error // the sentinel, and the underlying cause if there is one
}

func (e *userError) Error() string   { return e.msg }
func (e *userError) Unwrap() []error { return e.wrapped }

func newError(kind, cause error, format string, args ...any) error {
	wrapped := []error{kind}
	if cause != nil {
		wrapped = append(wrapped, cause)
	}
	return &userError{msg: fmt.Sprintf(format, args...), wrapped: wrapped}
}

// fsError explains a failed file system call on p in words a person can act on.
func fsError(p string, err error) error {
	switch {
	// ENOTDIR means a parent on the way is a file: for the user, the folder is not there.
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return newError(ErrNotFound, err, `"%s" does not exist (was it moved or deleted?)`, p)
	case errors.Is(err, fs.ErrPermission):
		return newError(ErrUnreadable, err, `Gantry cannot read "%s": permission denied.`, p)
	default:
		reason := err
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) {
			reason = pathErr.Err // the path is already in the sentence
		}
		return newError(ErrUnreadable, err, `Gantry cannot read "%s": %v.`, p, reason)
	}
}
