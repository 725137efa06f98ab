package codeannals.probe;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import jdk.internal.org.objectweb.asm.ClassReader;
import jdk.internal.org.objectweb.asm.ClassVisitor;
import jdk.internal.org.objectweb.asm.ClassWriter;
import jdk.internal.org.objectweb.asm.MethodVisitor;
import jdk.internal.org.objectweb.asm.Opcodes;

/**
 * A Java agent that makes every method and constructor of the classes loaded from one folder (the project's main
 * classes, its argument) call {@link Probe#hit} first, with the method's number. The test classes, loaded from
 * another folder of the same packages, are left as they are. Synthetic methods (lambdas' bodies, bridges,
 * accessors) and static initializers are not counted: no symbol of the source stands for them.
 */
public final class Agent implements ClassFileTransformer {
    private final String folder;

    private Agent(String folder) {
        this.folder = folder;
    }

    public static void premain(String folder, Instrumentation instrumentation) throws Exception {
        String url = new java.io.File(folder).toURI().toURL().toString();
        instrumentation.addTransformer(new Agent(url.endsWith("/") ? url : url + "/"));
    }

    @Override
    public byte[] transform(
            ClassLoader loader, String name, Class<?> redefined, ProtectionDomain domain, byte[] bytes) {
        if (domain == null || domain.getCodeSource() == null || domain.getCodeSource().getLocation() == null) {
            return null;
        }
        if (!domain.getCodeSource().getLocation().toString().equals(folder)) {
            return null;
        }
        try {
            ClassReader reader = new ClassReader(bytes);
            // the frames stay valid: the call is added before the first instruction, and pushes nothing it leaves
            ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
            reader.accept(new Entries(writer, name), 0);
            return writer.toByteArray();
        } catch (RuntimeException e) {
            e.printStackTrace();  // the class runs as compiled, its methods uncounted
            return null;
        }
    }

    private static final class Entries extends ClassVisitor {
        private final String owner;

        Entries(ClassVisitor next, String owner) {
            super(Opcodes.ASM8, next);
            this.owner = owner;
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                String[] exceptions) {
            MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
            if ((access & (Opcodes.ACC_SYNTHETIC | Opcodes.ACC_BRIDGE)) != 0 || name.equals("<clinit>")) {
                return next;
            }
            int id = Probe.id(owner + " " + name + " " + descriptor);
            return new MethodVisitor(Opcodes.ASM8, next) {
                @Override
                public void visitCode() {
                    super.visitCode();
                    super.visitLdcInsn(id);
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, "codeannals/probe/Probe", "hit", "(I)V", false);
                }
            };
        }
    }
}
