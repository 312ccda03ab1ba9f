package terminal

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// ttyChildEnv marks the test binary started by TestCommandsCannotTypeIntoGantrysTerminal.
const ttyChildEnv = "GANTRY_TEST_TTY_CHILD"

// injected is what the commands try to type into the terminal; the test looks for its echo.
const injected = "gantry-injected-7f3a"

func ioctl(fd, req uintptr, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}

// openPTY returns a new pseudo-terminal's master and slave.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	var unlock int32
	require.NoError(t, ioctl(master.Fd(), syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)))
	var n uint32
	require.NoError(t, ioctl(master.Fd(), syscall.TIOCGPTN, unsafe.Pointer(&n)))
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	return master, slave
}

// TestCommandsCannotTypeIntoGantrysTerminal: a command must not push input into the terminal
// Gantry was started from (TIOCSTI), which the shell there would run once Gantry exits; in the
// sandbox that would be a way out (CVE-2017-5226). This test runs the test binary again as a
// session leader on a fresh pseudo-terminal (TestTTYChild), where commands try it; the terminal
// must echo nothing of theirs.
func TestCommandsCannotTypeIntoGantrysTerminal(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("needs python3 for the ioctl")
	}
	master, slave := openPTY(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestTTYChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), ttyChildEnv+"="+python, "XDG_CACHE_HOME="+t.TempDir())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	require.NoError(t, cmd.Start())
	slave.Close()

	var mu sync.Mutex
	var seen bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			seen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return // EIO once the child and everything holding the terminal are gone
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err = <-exited:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the child test did not finish")
	}
	// The reader ends once it has read everything the child wrote: nothing else holds the
	// terminal. The limit only keeps a leftover holder from hanging the test.
	select {
	case <-read:
	case <-time.After(60 * time.Second):
	}
	mu.Lock()
	out := seen.String()
	mu.Unlock()
	require.NoError(t, err, out)
	if strings.Contains(out, "control refused") {
		t.Skipf("TIOCSTI does not work on this system at all: %s", out)
	}
	require.Contains(t, out, "control typed", out)
	require.Contains(t, out, "plain: not typed", out)
	if SandboxAvailable().Available {
		require.Contains(t, out, "sandboxed: not typed", out)
	}
	require.NotContains(t, out, injected, "a command typed into the terminal")
}

// TestTTYChild is the part of TestCommandsCannotTypeIntoGantrysTerminal that runs on the
// pseudo-terminal; on its own it does nothing.
func TestTTYChild(t *testing.T) {
	python := os.Getenv(ttyChildEnv)
	if python == "" {
		t.Skip("runs only as the child of TestCommandsCannotTypeIntoGantrysTerminal")
	}
	// The control: this process, whose terminal it is, can type into it.
	nl := byte('\n')
	if err := ioctl(0, syscall.TIOCSTI, unsafe.Pointer(&nl)); err != nil {
		fmt.Printf("control refused: %v\n", err)
		return
	}
	fmt.Println("control typed")

	// The text goes in as hex so that no error message can echo it by accident.
	script := fmt.Sprintf(`import fcntl, os, termios
try:
    fd = os.open("/dev/tty", os.O_RDWR)
    for b in bytes.fromhex("%s"):
        fcntl.ioctl(fd, termios.TIOCSTI, bytes([b]))
    print("typed")
except OSError as e:
    print("not typed:", e)
`, hex.EncodeToString([]byte(injected+"\n")))
	modes := map[string]Sandbox{"plain": {}}
	if SandboxAvailable().Available {
		modes["sandboxed"] = Sandbox{Enabled: true}
	}
	for name, sb := range modes {
		s := NewSession(t.TempDir())
		s.SetSandbox(sb)
		res, err := s.Run(context.Background(), shellQuote(python)+" -c "+shellQuote(script), "", Options{})
		require.NoError(t, err)
		fmt.Printf("%s: %s\n", name, strings.TrimSpace(firstLineOf(res.Output)))
	}
}
