# Two uses, for bench/facts_imports_ruby.py:
#
# Loaded with `-r` into a project's test run (and, through RUBYOPT, into each `ruby` it starts): records each
# `require`, `require_relative`, `load` and `autoload` a file of the project makes, and the file Ruby loads for it.
# IMPORTS_ROOT: the project's folder; IMPORTS_OUT: the JSON lines appended as the calls happen (a test that ends
# its process with `exit!` loses nothing):
#   {"call": kind, "from": file, "line": n, "feature": as passed, "to": file or null, "base": $LOAD_PATH entry}, for
#     each call a file of the project makes (what it loads may be a gem's or the standard library's)
#     kind: require, require_relative, load, autoload (the registration: the file writing `autoload :X, "path"`),
#     fired (an autoload's require, `from` the file naming the constant, `by` the registering file);
#     `to` is the file Ruby loads, or would load for a feature already loaded ($LOAD_PATH.resolve_feature_path
#     finds it among $LOADED_FEATURES first, as `require` does), else what $LOADED_FEATURES gained;
#   {"loaded": [files]}: at exit, the project's files this process loaded ($0 and $LOADED_FEATURES).
#
# Run as a script, `ruby facts_imports_ruby.rb ROOT LISTING DIR...`, reads the files named in LISTING (one a line,
# relative to ROOT) with Ripper and writes one JSON line per literal `require`, `require_relative`, `load` or
# `autoload` call, resolved by Ruby's own $LOAD_PATH.resolve_feature_path with the DIRs first on the load path:
#   {"call": kind, "from": file, "line": n, "feature": literal, "to": file or null}
require "json"

module FactsImportsRuby
  def self.resolve(feature)
    found = $LOAD_PATH.resolve_feature_path(feature)
    found && found[0] == :rb ? real(found[1]) : nil
  rescue LoadError, TypeError, ArgumentError
    nil
  end

  def self.real(path)
    File.realpath(path)
  rescue SystemCallError
    path
  end

  # The $LOAD_PATH entry `require feature` found `to` under, if any.
  def self.base_of(feature, to)
    return nil if to.nil? || feature.start_with?("/", "./", "../")

    stem = feature.delete_suffix(".rb")
    $LOAD_PATH.map { |dir| real(File.expand_path(dir.to_s)) }.find { |dir| to == File.join(dir, "#{stem}.rb") }
  end

  # `load`'s search: the load path, then the working directory (rb_find_file, then the file as named).
  def self.load_target(file)
    if file.start_with?("/", "./", "../", "~")
      path = File.expand_path(file)
      return File.file?(path) ? real(path) : nil
    end
    dir = $LOAD_PATH.find { |d| File.file?(File.join(File.expand_path(d.to_s), file)) }
    path = dir ? File.join(File.expand_path(dir.to_s), file) : File.expand_path(file)
    File.file?(path) ? real(path) : nil
  end
end

if $PROGRAM_NAME == __FILE__
  require "ripper"

  module FactsImportsRuby
    KINDS = %w[require require_relative load autoload].freeze

    # [name, receiver, args, line] of a method call node, or nil
    def self.call_of(node)
      case node[0]
      when :command then [node[1], nil, node[2]]
      when :command_call then [node[3], node[1], node[4]]
      when :method_add_arg
        inner = node[1]
        args = node[2].is_a?(Array) && node[2][0] == :arg_paren ? node[2][1] : nil
        case inner[0]
        when :fcall then [inner[1], nil, args]
        when :call then [inner[3], inner[1], args]
        end
      end
    end

    def self.literal(arg)
      return nil unless arg.is_a?(Array) && arg[0] == :string_literal

      parts = arg[1][1..]
      return "" if parts.empty?
      return nil unless parts.size == 1 && parts[0][0] == :@tstring_content

      parts[0][1]
    end

    def self.kernel?(receiver)
      receiver.nil? || (receiver[0] == :var_ref && receiver[1][1] == "Kernel") ||
        (receiver[0] == :top_const_ref && receiver[1][1] == "Kernel")
    end

    def self.calls(source)
      found = []
      walk = lambda do |node|
        next unless node.is_a?(Array)

        name, receiver, args = call_of(node) if node[0].is_a?(Symbol)
        if name.is_a?(Array) && name[0] == :@ident && KINDS.include?(name[1])
          list = args.is_a?(Array) && args[0] == :args_add_block ? args[1] : args
          list = [] unless list.is_a?(Array) && list.all?(Array)
          arg = name[1] == "autoload" ? list[1] : list[0]
          if (name[1] == "autoload" || kernel?(receiver)) && (feature = literal(arg))
            found << [name[1], name[2][0], feature]
          end
        end
        node.each { |child| walk.call(child) }
      end
      walk.call(Ripper.sexp(source))
      found
    end

    def self.scan(root, listing, dirs)
      $LOAD_PATH.unshift(*dirs.map { |d| File.join(root, d) })
      File.readlines(listing, chomp: true).each do |relative|
        file = real(File.join(root, relative))
        source = File.read(file, encoding: "UTF-8")
        calls(source).each do |kind, line, feature|
          to = case kind
               when "require_relative" then resolve(File.expand_path(feature, File.dirname(file)))
               when "load" then Dir.chdir(root) { load_target(feature) }
               else resolve(feature)
               end
          puts JSON.generate({ call: kind, from: file, line: line, feature: feature, to: to })
        end
      end
    end
  end

  FactsImportsRuby.scan(FactsImportsRuby.real(ARGV[0]), ARGV[1], ARGV[2..])
  exit
end

module FactsImportsRuby
  ROOT = File.join(File.realpath(ENV.fetch("IMPORTS_ROOT")), "")
  OUT = File.open(ENV.fetch("IMPORTS_OUT"), "a")
  OUT.sync = true
  ORIGINAL_REQUIRE = Kernel.instance_method(:require)
  @pending = {} # an autoload's feature -> the file registering it
  @unresolved = [] # autoloads registered before their folder was on the load path: resolved at exit

  def self.ours?(path)
    !path.nil? && path.start_with?(ROOT)
  end

  def self.caller_file(location)
    path = location&.absolute_path || location&.path
    path && real(path)
  end

  def self.write(record)
    OUT.puts(JSON.generate(record))
  end

  # The call made (by `yield`), recorded when a file of ours made it (what it loads may be a gem's).
  def self.recorded(kind, location, feature, to, extra = {})
    from = caller_file(location)
    return yield unless ours?(from)

    before = $LOADED_FEATURES.size
    loaded = false
    begin
      result = yield
      loaded = true
      result
    ensure
      # what a feature outside the load path (a gem rubygems activates) added last: the file itself, its own
      # requires being added before it (and none when the call failed: they may be all it added)
      to ||= $LOADED_FEATURES[before..].last&.then { |f| real(f) } if loaded && kind != "load"
      base = kind == "require" ? base_of(feature, to) : nil
      record = { call: kind, from: from, line: location.lineno, feature: feature, to: to, base: base, **extra }
      write(record)
    end
  end

  def self.on_require(receiver, feature, location, &call)
    name = File.path(feature)
    by = @pending[name]
    # An autoload firing calls `require` on the top-level object from the line naming the constant.
    if by && receiver.equal?(TOPLEVEL_BINDING.receiver) && !line_of(location).match?(/\b(require|load)\b/)
      return recorded("fired", location, name, resolve(name), { by: by }, &call)
    end

    recorded("require", location, name, resolve(name), &call)
  end

  # Ruby resolves require_relative against the calling frame, which would be the hook's: resolved here instead.
  def self.on_require_relative(feature, location)
    from = location&.absolute_path
    return yield nil if from.nil?

    path = File.expand_path(File.path(feature), File.dirname(real(from)))
    recorded("require_relative", location, File.path(feature), resolve(path)) { yield path }
  end

  def self.on_load(file, location, &call)
    recorded("load", location, File.path(file), load_target(File.path(file)), &call)
  end

  def self.registered(location, feature)
    from = caller_file(location)
    return unless ours?(from)

    feature = File.path(feature)
    @pending[feature] = from
    to = resolve(feature)
    if to.nil?
      @unresolved << [from, location.lineno, feature]
    else
      write({ call: "autoload", from: from, line: location.lineno, feature: feature, to: to, base: base_of(feature, to) })
    end
  end

  def self.line_of(location)
    (File.readlines(caller_file(location))[location.lineno - 1] rescue nil).to_s
  end

  # `Kernel.require` and the like: public
  module KernelFunctions
    def require(feature)
      FactsImportsRuby.on_require(self, feature, caller_locations(1, 1).first) { super(feature) }
    end

    def require_relative(feature)
      FactsImportsRuby.on_require_relative(feature, caller_locations(1, 1).first) do |path|
        path ? ORIGINAL_REQUIRE.bind_call(self, path) : super(feature)
      end
    end

    def load(file, *rest)
      FactsImportsRuby.on_load(file, caller_locations(1, 1).first) { super(file, *rest) }
    end
  end

  # Object's Kernel methods: the same, private
  module Kernels
    include KernelFunctions
    private(*KernelFunctions.instance_methods(false))

    private

    # Kernel#autoload registers in the caller's lexical scope, which would be this module: the top level's here.
    def autoload(const, feature)
      FactsImportsRuby.registered(caller_locations(1, 1).first, feature)
      Object.autoload(const, feature)
    end
  end

  module Modules
    def autoload(const, feature)
      FactsImportsRuby.registered(caller_locations(1, 1).first, feature)
      super
    end
  end

  Kernel.prepend(Kernels)
  Kernel.singleton_class.prepend(KernelFunctions)
  Module.prepend(Modules)

  at_exit do
    @unresolved.each do |from, line, feature|
      to = resolve(feature)
      write({ call: "autoload", from: from, line: line, feature: feature, to: to, base: base_of(feature, to) })
    end
    loaded = [$PROGRAM_NAME, *$LOADED_FEATURES].map { |f| real(File.expand_path(f)) }.select { |f| ours?(f) && File.file?(f) }
    write({ loaded: loaded.uniq })
  end
end
