# Writes tests/data/saved_model/tf_*/ with TensorFlow 2.21 + Keras 3 (run with
# the oracle's Python from the repository root). The golden
# saved_model/tf_written.dist loads them with dist; its expected output is
# TensorFlow loading the same files.
import shutil
import tensorflow as tf
import keras

out = "tests/data/saved_model"


class Affine(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[1.0, -2.0], [0.5, 3.0]], name="w")
        self.b = tf.Variable([0.25, -0.75], name="b")
        self.steps = tf.Variable(0, name="steps")

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def __call__(self, x):
        return tf.nn.relu(tf.matmul(x, self.w) + self.b)

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32),
                                  tf.TensorSpec([], tf.float32)])
    def scaled(self, x, s):
        y = tf.matmul(x, self.w) * s
        return {"sum": tf.reduce_sum(y, axis=1), "max": tf.reduce_max(y, axis=1, keepdims=True)}

    @tf.function(input_signature=[])
    def step(self):
        self.steps.assign_add(1)
        return self.steps.read_value()


shutil.rmtree(out + "/tf_module", ignore_errors=True)
m = Affine()
tf.saved_model.save(m, out + "/tf_module",
                    signatures={"serving_default": m.__call__, "scaled": m.scaled})

shutil.rmtree(out + "/tf_keras", ignore_errors=True)
keras.utils.set_random_seed(2)
model = keras.Sequential([
    keras.Input((6, 6, 1)),
    keras.layers.Conv2D(2, 3, activation="relu"),
    keras.layers.MaxPooling2D(),
    keras.layers.Flatten(),
    keras.layers.Dense(4, activation="tanh"),
    keras.layers.Dense(3, activation="softmax"),
])
tf.saved_model.save(model, out + "/tf_keras")
