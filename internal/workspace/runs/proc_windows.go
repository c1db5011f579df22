package runs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows the command runs in a process group of its own
// (CREATE_NEW_PROCESS_GROUP), which is what a polite stop reaches: a
// CTRL_BREAK_EVENT to the group, the console's equivalent of SIGINT and
// SIGTERM (a new group ignores Ctrl-C, Ctrl-Break it cannot ignore unless
// it asks to). What it and its children are is a job object: the command
// starts suspended, joins the job, then runs, so that every process it
// starts is in the job too. Killing the job (TerminateJobObject) stops them
// all, as SIGKILL to the group does on Unix; the job counts the processes
// still running; and it is made to kill what is left of them when its last
// handle closes, at the end of Run or when itr dies. Should the job not be
// made (a job the system does not allow to be nested), the tree is stopped
// with `taskkill /T /F /PID`, which finds the children by their parent's id.

// stopSignal is a polite request to stop: on Windows both are a
// CTRL_BREAK_EVENT to the command's process group.
type stopSignal int

const (
	sigInt stopSignal = iota
	sigTerm
)

// procGroup is the job object the command and its children run in; 0 when
// none could be made.
type procGroup struct {
	job windows.Handle
}

// setGroup makes cmd start, suspended, in a new process group; started
// puts it in a job and lets it run.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_SUSPENDED,
	}
}

// started puts the command, still suspended, in a new job object and then
// resumes it. Without a job it still resumes it (kill falls back to
// taskkill); an error means the command could not be resumed, and the
// caller kills it.
func (r *runner) started() error {
	pid := uint32(r.cmd.Process.Pid)
	if job, err := newJob(pid); err == nil {
		r.group.job = job
	}
	return resume(pid)
}

// newJob makes a job object that kills its processes when its last handle
// is closed, and puts the process pid in it.
func newJob(pid uint32) (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	defer windows.CloseHandle(p)
	if err := windows.AssignProcessToJobObject(job, p); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

// resume resumes the threads of the suspended process pid (there is one:
// the main thread CreateProcess made suspended). os/exec keeps no handle on
// it, so it is found among the system's threads.
func resume(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("resume: %w", err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resume: %w", err)
		}
		resumed++
	}
	if resumed == 0 {
		return errors.New("resume: the started process has no thread")
	}
	return nil
}

// release closes the job: what is left in it is killed.
func (r *runner) release() {
	if r.group.job != 0 {
		windows.CloseHandle(r.group.job)
		r.group.job = 0
	}
}

// notifySignals makes the signals Run forwards arrive on c: Ctrl-C and
// Ctrl-Break (os.Interrupt), and the console's close, logoff and shutdown
// events, which Go delivers as SIGTERM.
func notifySignals(c chan<- os.Signal) {
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
}

// stopSignals undoes notifySignals.
func stopSignals(c chan<- os.Signal) {
	signal.Stop(c)
}

// signal sends CTRL_BREAK_EVENT to the command's process group. Only a
// process sharing itr's console can be sent one; where that fails (itr has
// no console) there is no polite way, and the group is killed.
func (r *runner) signal(stopSignal) {
	if windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(r.cmd.Process.Pid)) != nil {
		r.kill()
	}
}

// kill stops every process of the command: the job's, else the tree
// taskkill finds under the command's pid.
func (r *runner) kill() {
	if r.group.job != 0 {
		if windows.TerminateJobObject(r.group.job, 1) == nil {
			return
		}
	}
	pid := strconv.Itoa(r.cmd.Process.Pid)
	tk := exec.Command(filepath.Join(systemDir(), "taskkill.exe"), "/T", "/F", "/PID", pid)
	tk.SysProcAttr = &syscall.SysProcAttr{HideWindow: true}
	_ = tk.Run()
	_ = r.cmd.Process.Kill()
}

// systemDir is Windows's System32 folder, where taskkill is.
func systemDir() string {
	if d, err := windows.GetSystemDirectory(); err == nil {
		return d
	}
	return `C:\Windows\System32`
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime             int64
	TotalKernelTime           int64
	ThisPeriodTotalUserTime   int64
	ThisPeriodTotalKernelTime int64
	TotalPageFaultCount       uint32
	TotalProcesses            uint32
	ActiveProcesses           uint32
	TotalTerminatedProcesses  uint32
}

// groupAlive reports whether a process of the command's job is still
// running. Without a job only the command itself is known, and it has
// exited when this is asked.
func (r *runner) groupAlive() bool {
	if r.group.job == 0 {
		return false
	}
	var info jobAccounting
	if err := windows.QueryInformationJobObject(r.group.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return false
	}
	return info.ActiveProcesses > 0
}

// signalOf returns "": a Windows process ends with an exit code only.
func signalOf(*os.ProcessState) string { return "" }

// executable accepts any file: Windows decides when it starts it (an .exe
// or .com, or a .bat or .cmd run by cmd.exe) and says why not otherwise.
func executable(string, fs.FileInfo) error { return nil }

// hasDir reports whether the command name is a path (holds a slash, a
// backslash or a drive) rather than a name to look up in PATH.
func hasDir(name string) bool {
	return strings.ContainsAny(name, `/\`) || filepath.VolumeName(name) != ""
}

// findExecutable finds the file path names as Windows runs it, as
// exec.LookPath does: path itself when it has an extension, else (or
// when there is no such file) path with the first of PATHEXT's extensions
// (".com;.exe;.bat;.cmd" without it) that makes a file: "go" is go.exe.
func findExecutable(path string) (string, error) {
	var first error
	if filepath.Ext(path) != "" {
		if first = checkExecutable(path); first == nil {
			return path, nil
		}
	}
	for _, e := range pathExts() {
		p := path + e
		err := checkExecutable(p)
		if err == nil {
			return p, nil
		}
		if first == nil {
			first = err
		}
	}
	return "", first
}

// pathExts are the extensions of PATHEXT, lower case, with their dots.
func pathExts() []string {
	var exts []string
	for _, e := range strings.Split(strings.ToLower(os.Getenv("PATHEXT")), ";") {
		if e == "" {
			continue
		}
		if e[0] != '.' {
			e = "." + e
		}
		exts = append(exts, e)
	}
	if len(exts) == 0 {
		exts = []string{".com", ".exe", ".bat", ".cmd"}
	}
	return exts
}

// sameEnvKey reports whether two names of environment variables are the
// same variable's: on Windows case does not count ("Path" is PATH).
func sameEnvKey(a, b string) bool { return strings.EqualFold(a, b) }
