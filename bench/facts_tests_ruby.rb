# Loaded with `-r` into a project's test run by bench/facts_tests_ruby.py: records which of the project's lib/
# methods each test method executes, its class's setup and teardown included.
#
# TESTS_ROOT: the project's folder; TESTS_OUT: the JSON lines written at exit, one per test method that ran:
#   {"test": [file defining the test method, the class or module defining it, its name], "passed": bool,
#    "methods": [[file, def line, name], ...]}: the methods of lib/ entered (any depth) while it ran.
# A test inherited from a base class is the base class's: its file and name are where the method is defined.
require "json"

module FactsTestsRuby
  ROOT = File.join(File.realpath(ENV.fetch("TESTS_ROOT")), "")
  LIB = File.join(ROOT, "lib", "")
  OUT = ENV.fetch("TESTS_OUT")
  # The classes whose `run` holds one test's setup, body and teardown, in test-unit and minitest
  RUNNERS = %w[Test::Unit::TestCase Minitest::Test].freeze

  @current = nil
  @tests = {}
  @real = {}

  # Prepended to each runner: the test is current from before its setup to after its teardown.
  module Current
    def run(*args, &block)
      FactsTestsRuby.during(self) { super(*args, &block) }
    end
  end

  def self.real(path)
    @real[path] ||= (File.realpath(path) rescue path)
  end

  def self.during(test)
    outer = @current
    @current = test_id(test)
    record = (@tests[@current] ||= { methods: {}, passed: true })
    result = yield
    record[:passed] &&= test.passed? if test.respond_to?(:passed?)
    result
  ensure
    @current = outer
  end

  def self.test_id(test)
    name = (test.respond_to?(:method_name) ? test.method_name : test.name).to_s
    method = test.class.instance_method(name)
    file, = method.source_location
    [file && real(file), method.owner.name, name]
  rescue NameError
    [nil, test.class.name, name]
  end

  def self.entered(tp)
    return if @current.nil?

    path = real(tp.path)
    @tests[@current][:methods][[path, tp.lineno, tp.method_id.to_s]] = true if path.start_with?(LIB)
  end

  def self.prepare(klass)
    klass.prepend(Current) if RUNNERS.include?(klass.name) && !klass.ancestors.include?(Current)
  end

  def self.write
    File.open(OUT, "w") do |out|
      @tests.each do |test, record|
        out.puts(JSON.generate({ test: test, passed: record[:passed], methods: record[:methods].keys }))
      end
    end
  end

  # test-unit and minitest load after this file: each runner gets its prepend when its class body first opens
  OPENED = TracePoint.new(:class) { |tp| prepare(tp.self) }
  OPENED.enable
  TRACE = TracePoint.new(:call) { |tp| entered(tp) }
  TRACE.enable
  at_exit do # registered first, so it runs after the runners' own at_exit hooks, which run the tests
    TRACE.disable
    write
  end
end
