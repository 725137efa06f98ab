# Loaded with `-r` into a project's test run by bench/facts_calls_ruby.py: records which of the project's methods
# ran from which line of its own code, and what Ruby's own parser says is written there.
#
# CALLS_ROOT: the project's folder; CALLS_OUT: the JSON lines written at exit:
#   {"site": [caller file, caller line, caller frame's label, through a C method, callee file, def line, method,
#             defining class, name called], "count": n}: a method of lib/ or test/ entered from a line of them;
#   {"written": file, "calls": [[line, name, form], ...]}: each method call Ripper reads in a file holding a site,
#             on the line of its name (form: call, fcall, vcall, command, command_call, field for `a.b = c`);
#   {"covered": file, "lines": [...]}: the lines of lib/ and test/ files that ran (Coverage), so that a call of
#             ours at a line that ran, where no method of ours ran, can be told from one never reached.
require "coverage"
require "json"
require "ripper"

module FactsCallsRuby
  ROOT = File.join(File.realpath(ENV.fetch("CALLS_ROOT")), "")
  OWN = [File.join(ROOT, "lib", ""), File.join(ROOT, "test", "")].freeze
  OUT = ENV.fetch("CALLS_OUT")
  # Ripper's node types naming a method call, and where in the node the name's token is
  NAME_AT = { call: 3, command_call: 3, fcall: 1, vcall: 1, command: 1, field: 3 }.freeze

  @sites = Hash.new(0)
  @real = {}

  def self.real(path)
    @real[path] ||= (File.realpath(path) rescue path)
  end

  def self.ours?(path, prefixes)
    prefixes.any? { |prefix| path.start_with?(prefix) }
  end

  def self.record(tp)
    callee = real(tp.path)
    return unless ours?(callee, OWN)

    # past this method and the hook's block: [0] the caller's frame, [1] its own caller (where [0] is a C method's)
    frames = caller_locations(3, 2)
    return if frames.nil? || frames.empty?

    caller = frames[0]
    written_in = caller.absolute_path || caller.path
    return if written_in.nil? # code evaluated from a string has no file

    path = real(written_in)
    return unless ours?(path, OWN)

    # A C method's frame (`new`, `map(&:x)`, `instance_exec`) has no line of its own: it shows its caller's.
    outer = frames[1]
    through_c = !outer.nil? && outer.lineno == caller.lineno && real(outer.absolute_path || outer.path) == path &&
                !caller.label.start_with?("block ", "<", "rescue ", "ensure ")
    @sites[[path, caller.lineno, caller.label, through_c, callee, tp.lineno, tp.method_id.to_s,
            tp.defined_class.to_s, tp.callee_id.to_s]] += 1
  end

  def self.written_calls(path)
    calls = []
    walk = lambda do |node|
      next unless node.is_a?(Array)

      at = NAME_AT[node[0]]
      token = at && node[at]
      if token.is_a?(Array) && token[2].is_a?(Array)
        name = node[0] == :field ? "#{token[1]}=" : token[1]
        calls << [token[2][0], name, node[0].to_s]
      end
      node.each { |child| walk.call(child) }
    end
    walk.call(Ripper.sexp(File.read(path)))
    calls.uniq
  end

  def self.write
    File.open(OUT, "w") do |out|
      @sites.each { |site, count| out.puts(JSON.generate({ site: site, count: count })) }
      @sites.keys.map(&:first).uniq.each do |path|
        out.puts(JSON.generate({ written: path, calls: written_calls(path) }))
      end
      Coverage.result.each do |path, result|
        path = real(path)
        next unless ours?(path, OWN)

        lines = result[:lines].each_with_index.filter_map { |hits, i| i + 1 if hits&.positive? }
        out.puts(JSON.generate({ covered: path, lines: lines }))
      end
    end
  end

  Coverage.start(lines: true)
  TRACE = TracePoint.new(:call) { |tp| record(tp) }
  TRACE.enable
  at_exit do
    TRACE.disable
    write
  end
end
