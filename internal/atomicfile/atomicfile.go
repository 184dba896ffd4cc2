// Package atomicfile replaces files so that a reader sees the old content or the new,
// never a part: every artifact, gate.json, run.json, junit.xml and report is written so.
package atomicfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// WriteJSON encodes v in the artifacts' layout (wire.Canonical: sorted keys, two-space
// indentation, a trailing newline) and replaces the file at path with it. An encoding
// error leaves any previous file untouched.
func WriteJSON(path string, v any) error {
	data, err := EncodeJSON(v)
	if err != nil {
		return fmt.Errorf("write json %s: %w", path, err)
	}
	return Write(path, data)
}

// EncodeJSON is v marshalled with encoding/json (HTML left unescaped), then re-emitted
// by wire.Canonical.
func EncodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode json: %w", err)
	}
	out, err := wire.Canonical(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("encode json: %w", err)
	}
	return out, nil
}

// Write replaces the file at path with data so that readers see either the old
// content or the new, never a partial file: it writes a temporary ".{base}.{random}.tmp"
// in the same directory, syncs and closes it, renames it over path and syncs the
// directory. The temporary file is removed on any failure. The parent directory is
// created (0o755) if missing. A path that is a symlink or exists as anything other than a
// regular file is refused. The new file keeps the mode of the file it replaces, else 0o644.
func Write(path string, data []byte) error {
	if err := replaceFile(path, data); err != nil {
		return fmt.Errorf("write file %s: %w", path, err)
	}
	return nil
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

// ReadAtMost reads the whole file at path, refusing one larger than limit bytes (a
// configuration file, which a wrong path could make a device or a log).
func ReadAtMost(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return data, nil
}
