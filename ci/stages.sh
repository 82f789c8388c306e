# Sourced by ci/test: `stage`, which runs one step of the run with a time
# limit and records its result, and `kill_tree`. The caller sets $out (a
# directory) and $stages (the stages file, `NAME<TAB>pass|fail<TAB>SECONDS
# [<TAB>MESSAGE]`). ci/stages-selftest checks them.

# kill_tree PID [SIGNAL]: PID and every process below it (SIGTERM unless
# SIGNAL names another).
kill_tree() {
  local child
  for child in $(pgrep -P "$1"); do
    kill_tree "$child" "${2:-TERM}"
  done
  kill "-${2:-TERM}" "$1" 2>/dev/null || true
}
# children_cpu VAR: set VAR to the CPU seconds (user and system) of this
# shell's children that have ended and been waited for, and of everything
# they waited for in turn. `times` must run in this shell itself: in a pipe
# or a $(...) it would be a new process, whose counts start at nought.
children_cpu() {
  local file
  file=$(mktemp)
  times >"$file"
  printf -v "$1" '%s' "$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$file")"
  rm -f "$file"
}
# stage_took NAME START CPU_BEFORE: print a stage's closing line, its wall
# time since START ($SECONDS then) and the CPU time its children used since
# children_cpu gave CPU_BEFORE. On 2 cores a stage's CPU over its seconds
# says how much of the machine it kept busy (the rest went to what ran
# beside it).
stage_took() {
  local cpu_after
  children_cpu cpu_after
  echo "== $1: $((SECONDS - $2)) s, CPU $((cpu_after - $3)) s"
}
# stage NAME COMMAND...: run one stage (a command or a function of this
# script, in a subshell with errexit on, so any failing command in it fails
# the stage), record pass or fail and its seconds, and stop at the first
# failure. State a later stage needs is set outside stages.
# A stage still running after CROSSDEC_STAGE_MINUTES (default 30: the
# slowest of the gate's takes about 6 on a loaded machine; ci/certify allows
# hours) is killed and fails as timed out: a hang, such as a forked process
# stuck on a lock under qemu-user before it reaches `exec`, then ends the run
# with its stage named instead of using up CI's whole time.
stage_limit=$((${CROSSDEC_STAGE_MINUTES:-30} * 60))
stage() {
  local name=$1 start=$SECONDS rc pid watchdog sleeper timed_out cpu_before
  shift
  echo "== $name"
  children_cpu cpu_before
  set +e
  (
    set -e
    "$@"
  ) &
  pid=$!
  # Exits 99 if it had to kill the stage.
  (
    sleep "$stage_limit"
    echo "ci/test: stage \"$name\" still running after $((stage_limit / 60)) minutes (CROSSDEC_STAGE_MINUTES): killing it" >&2
    kill_tree "$pid" KILL
    exit 99
  ) &
  watchdog=$!
  wait "$pid"
  rc=$?
  # The watchdog before its sleep: killed the other way round, it would
  # wake and kill a stage that has already ended.
  sleeper=$(pgrep -P "$watchdog" || true)
  kill "$watchdog" 2>/dev/null
  wait "$watchdog"
  timed_out=$?
  [ -z "$sleeper" ] || kill $sleeper 2>/dev/null
  set -e
  stage_took "$name" "$start" "$cpu_before"
  if [ $timed_out -eq 99 ]; then
    printf '%s\tfail\t%s\ttimed out after %s minutes (CROSSDEC_STAGE_MINUTES): a hang? See the log of this stage\n' \
      "$name" $((SECONDS - start)) $((stage_limit / 60)) >>"$stages"
    echo "ci/test: stage \"$name\" timed out" >&2
    exit 124
  elif [ $rc -eq 0 ]; then
    printf '%s\tpass\t%s\n' "$name" $((SECONDS - start)) >>"$stages"
  else
    printf '%s\tfail\t%s\texit code %s (see the log of this stage)\n' "$name" $((SECONDS - start)) "$rc" >>"$stages"
    echo "ci/test: stage \"$name\" failed (exit code $rc)" >&2
    exit "$rc"
  fi
}
