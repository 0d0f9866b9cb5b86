"""Writes a section file of the results page (docs/bench/results/*.json, rendered into docs/benchmarks.md by
ResultsPageTest in the bench module): the table's columns and rows as numbers, the command that reproduces it, and
when and where it was measured. The shape is the bench module's ResultsSection (snake_case keys)."""
import datetime, json, os, subprocess


def commit(repo):
    try:
        out = subprocess.run(["git", "-C", repo, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        return out.stdout.strip() if out.returncode == 0 else None
    except OSError:
        return None


def column(header, keys, fmt=None):
    c = {"header": header, "keys": keys if isinstance(keys, list) else [keys]}
    if fmt:
        c["format"] = fmt
    return c


def write(path, repo, command, ran, load_start, columns, rows, machine=None):
    """Writes the section to path; load_start is the 1-minute load average when the run started."""
    load_end = open("/proc/loadavg").read().split()[0]
    lo, hi = sorted((float(load_start), float(load_end)))
    measured = {"command": ran, "commit": commit(repo),
                "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d, %H:%M UTC"),
                "machine": machine or f"{os.cpu_count()} cores",
                "load_average": f"{lo:.1f} to {hi:.1f}"}
    section = {"command": command, "measured": [{k: v for k, v in measured.items() if v is not None}],
               "columns": columns, "rows": [{k: v for k, v in r.items() if v is not None} for r in rows]}
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write(json.dumps(section, indent=2, ensure_ascii=False) + "\n")
