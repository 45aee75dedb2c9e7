# Reads whisper.rn's or llama.rn's podspec as CocoaPods would, without CocoaPods: a stand-in for Pod::Spec
# records each spec's attributes (an attribute assigned again keeps the last value, as CocoaPods'
# attributes_hash does) and this prints what the pod would build from the package's files:
#   ruby podspec.rb PACKAGE_DIR [--run]
#     source PATH      a file some spec compiles: its source_files globs minus its own
#                      exclude_files (CocoaPods does not hand exclude_files down to subspecs)
#     resource PATH    a file or folder of a spec's resources, likewise
#     framework PATH   a vendored framework, as written
# The environment picks the podspec's branches (RNWHISPER_BUILD_FROM_SOURCE,
# RNLLAMA_BUILD_FROM_SOURCE, ...).
require "set"

module Pod
  class Spec
    attr_reader :attributes_hash, :subspecs, :dependencies

    def initialize(parent = nil, name = nil)
      @parent = parent
      @name = name
      @attributes_hash = {}
      @subspecs = []
      @dependencies = []
      yield self if block_given?
    end

    def subspec(name, &block)
      child = Spec.new(self, name, &block)
      @subspecs << child
      child
    end

    def dependency(*args)
      @dependencies << args
    end

    # Any other attribute: `s.name = value` stores it (several values: an array), `s.name` reads it.
    def method_missing(method, *args)
      name = method.to_s
      if name.end_with?("=") && args.length == 1
        @attributes_hash[name.chomp("=")] = args[0]
      elsif args.empty? && !block_given?
        @attributes_hash[name]
      else
        super
      end
    end

    def respond_to_missing?(_method, _private = false)
      true
    end

    def all
      [self] + @subspecs.flat_map(&:all)
    end

    def patterns(attribute)
      [*@attributes_hash[attribute]]
    end
  end
end

# What the podspec runs at pod install (ios/apply.sh's block makes the framework when the package
# has none for its release): printed, and run too with --run (as pod install runs it).
RUN = ARGV.delete("--run")
def system(*args, **options)
  puts "build #{args.join(" ")}"
  RUN ? Kernel.system(*args, out: $stderr, **options) : true
end

# React Native's pod helper, which the podspecs of whisper.rn 0.5 and later and llama.rn call
def install_modules_dependencies(_spec); end

# The podspec's own local variables (it has a `package`) stay in a binding of their own.
def evaluate(path)
  eval(File.read(path), binding, path)
end

package = File.expand_path(ARGV.fetch(0))
podspecs = Dir.glob("*.podspec", base: package)
raise "#{package}: expected one podspec, found #{podspecs}" unless podspecs.length == 1
path = File.join(package, podspecs[0])
root = evaluate(path)
raise "#{path} does not evaluate to a Pod::Spec" unless root.is_a?(Pod::Spec)

def matches(package, patterns)
  patterns.flat_map { |pattern| Dir.glob(pattern, base: package) }.to_set
end

sources = Set.new
resources = Set.new
root.all.each do |spec|
  excluded = matches(package, spec.patterns("exclude_files"))
  sources.merge(matches(package, spec.patterns("source_files")).select { |f| File.file?(File.join(package, f)) } - excluded.to_a)
  resources.merge(matches(package, spec.patterns("resources") + spec.patterns("resource")) - excluded.to_a)
end
sources.sort.each { |f| puts "source #{f}" }
resources.sort.each { |f| puts "resource #{f}" }
root.all.flat_map { |spec| spec.patterns("vendored_frameworks") }.each { |f| puts "framework #{f}" }
