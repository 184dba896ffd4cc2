package artifact

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Write encodes b with Encode and replaces the file at path atomically (see
// WriteFileAtomic). An encoding error, such as a NaN Float, leaves any previous file
// untouched.
func Write(path string, b *Benchmark) error {
	if b == nil {
		return fmt.Errorf("write artifact %s: nil benchmark", path)
	}
	if err := writeEncoded(path, b); err != nil {
		return fmt.Errorf("write artifact %s: %w", path, err)
	}
	return nil
}

// WriteJSON encodes v with Encode (sorted keys, Python layout, trailing newline) and
// replaces the file at path atomically, as Write does.
func WriteJSON(path string, v any) error {
	if err := writeEncoded(path, v); err != nil {
		return fmt.Errorf("write json %s: %w", path, err)
	}
	return nil
}

// WriteFileAtomic replaces the file at path with data so that readers see either the old
// content or the new, never a partial file: it writes a temporary ".{base}.{random}.tmp"
// in the same directory, syncs and closes it, renames it over path and syncs the
// directory. The temporary file is removed on any failure. The parent directory is
// created (0o755) if missing. A path that is a symlink or exists as anything other than a
// regular file is refused. The new file keeps the mode of the file it replaces, else 0o644.
func WriteFileAtomic(path string, data []byte) error {
	if err := replaceFile(path, data); err != nil {
		return fmt.Errorf("write file %s: %w", path, err)
	}
	return nil
}

func writeEncoded(path string, v any) error {
	data, err := Encode(v) // before touching the file system, so a failure changes nothing
	if err != nil {
		return err
	}
	return replaceFile(path, data)
}

// rename is os.Rename, replaceable by tests to fail after the temporary file exists.
var rename = os.Rename

func replaceFile(path string, data []byte) (err error) {
	mode := fs.FileMode(0o644)
	switch info, lerr := os.Lstat(path); {
	case lerr == nil && info.Mode()&fs.ModeSymlink != 0:
		return errors.New("target is a symlink")
	case lerr == nil && !info.Mode().IsRegular():
		return fmt.Errorf("target is not a regular file (%s)", info.Mode().Type())
	case lerr == nil:
		mode = info.Mode().Perm()
	case !errors.Is(lerr, fs.ErrNotExist):
		return lerr
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return errors.New("path names a directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close() // may already be closed; the error is the earlier one
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(mode); err != nil { // CreateTemp makes 0o600
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir makes the rename durable. Windows cannot sync a directory handle.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
